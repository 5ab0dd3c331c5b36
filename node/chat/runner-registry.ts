/**
 * The one registry of runners (see runner.ts): a list of kind modules, each asked for what a spec
 * or start of its own kind needs. It knows no kind by name: a new kind is a module in its own
 * folder and one more entry in the host's list (host/runners.ts).
 */
import type { SpecKind } from "../core/runner-spec.ts";
import type { RunnerKind, Runners } from "./runner.ts";

/** The kinds a registry is made of: each stored kind exactly once, by its `kind`. */
export type KindModules = { readonly [K in SpecKind]: RunnerKind<K> };

/**
 * The registry over `kinds`. A spec of a kind none of them is (it reached here past the store's
 * check, or from a later version's code) is refused with its kind named, never run as another.
 */
export function registryOf(kinds: KindModules): Runners {
  /** The module of `kind`, typed for a spec of that kind (one lookup: the correlation TS cannot see). */
  const of = <K extends SpecKind>(kind: K): RunnerKind<K> => {
    if (!Object.hasOwn(kinds, kind)) throw new Error(`tine: no runner of kind ${JSON.stringify(kind)} in this version of tine`);
    const module = kinds[kind] as RunnerKind<SpecKind>;
    if (module.kind !== kind)
      throw new Error(`tine: the runner module listed as ${JSON.stringify(kind)} is of kind ${JSON.stringify(module.kind)}`);
    return module as unknown as RunnerKind<K>;
  };
  return {
    start: (start, dispatch) => of(start.kind).start(start, dispatch),
    reopen: (spec, history, dispatch, failed) => of(spec.kind).reopen(spec, history, dispatch, failed),
    label: (spec) => of(spec.kind).label(spec),
    traits: (spec) => of(spec.kind).traits(spec),
    ownMessages: (spec) => of(spec.kind).ownMessages(spec),
    storedNotices: (spec, title) => of(spec.kind).storedNotices(spec, title),
  };
}
