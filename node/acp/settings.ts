/**
 * An ACP session's settings as `:Tine model` lists and sets them: what the agent offers (its
 * `configOptions` of type select, from a session's answer and `config_option_update`; or, from an
 * agent that offers none, its `modes`, with `current_mode_update`), and what the user chose of
 * them (core/agent-choices.ts), kept with the thread and set again on each session the thread
 * takes up: after a restart's resume or load, and on a fork's new session.
 *
 * Setting one goes by `session/set_config_option` (or `session/set_mode` for a modes-only agent);
 * a value the agent did not offer is refused before anything is sent. Nothing the agent says is
 * trusted: its words are cut to one line, its ids kept only when short and printable, and its
 * lists capped.
 */
import type { SessionConfigOption, SessionModeState, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { AgentSetting } from "../chat/runner.ts";
import { type AgentChoices, isChoiceText, MAX_CHOICES } from "../core/agent-choices.ts";
import { oneLine } from "../core/one-line.ts";
import type { AcpConnection } from "./connection.ts";

/** What a session's answer (new, resume, load, fork) says of its settings. */
export type SessionOffer = {
  readonly modes?: SessionModeState | null;
  readonly configOptions?: readonly SessionConfigOption[] | null;
};

/** `v` (a session's answer, passed on opaquely) as what it offers: nothing when it is not an object. */
export function offerOf(v: unknown): SessionOffer {
  return typeof v === "object" && v !== null ? (v as SessionOffer) : {};
}

/** How many options of one setting are listed (a model list is the longest an agent sends). */
const MAX_OPTIONS = 200;

/** The id a modes-only agent's mode is listed under (`session/set_mode` sets it). */
const MODE_ID = "mode";

type Offered = AgentSetting & { readonly via: "config" | "mode" };

export class AcpSettings {
  private offered: readonly Offered[] = [];
  /** Whether the agent offers `configOptions` (else its modes stand in). */
  private configs = false;
  private chosen: AgentChoices;
  /** Choices the agent no longer offered when they were to be set again (its words), shown until the user chooses again. */
  private gone: string[] = [];

  constructor(chosen: AgentChoices | undefined) {
    this.chosen = chosen ?? {};
  }

  /** What the user chose, or undefined when nothing (the spec's `settings`). */
  get choices(): AgentChoices | undefined {
    return Object.keys(this.chosen).length ? this.chosen : undefined;
  }

  /** What the agent offers now. */
  list(): readonly AgentSetting[] {
    return this.offered.map(({ via: _via, ...setting }) => setting);
  }

  /** The banner's words for what the user chose, as the agent names them (`Model: Sonnet · Mode: Plan`), or null. */
  shown(): string | null {
    // Before the agent said what it offers, every choice; after, those it offers (the rest are `gone`).
    const known = (id: string) => this.offered.length === 0 || this.offered.some((o) => o.id === id);
    const parts = Object.entries(this.chosen)
      .filter(([id]) => known(id))
      .map(([id, value]) => {
        const s = this.offered.find((o) => o.id === id);
        const name = s?.options.find((o) => o.value === value)?.name ?? value;
        return `${s?.name ?? id}: ${oneLine(name, 60)}`;
      });
    if (this.gone.length) parts.push(`no longer offered: ${this.gone.join(", ")} (the agent's own is used)`);
    return parts.length ? parts.join(" · ") : null;
  }

  /** A session's answer: what it offers from now on. */
  took(offer: SessionOffer): void {
    if (Array.isArray(offer.configOptions)) {
      this.configs = true;
      this.offered = offer.configOptions.slice(0, MAX_CHOICES).flatMap((o) => settingOf(o));
    } else if (typeof offer.modes === "object" && offer.modes !== null) {
      this.configs = false;
      this.offered = modeSetting(offer.modes);
    }
  }

  /** An update about the settings (true: it was one, and is taken); any other is the transcript's. */
  apply(update: SessionUpdate): boolean {
    switch (update.sessionUpdate) {
      case "config_option_update": {
        // Those it names replace the ones of the same id; the others stay as they were.
        const fresh = update.configOptions.slice(0, MAX_CHOICES).flatMap((o) => settingOf(o));
        const ids = new Set(fresh.map((s) => s.id));
        this.configs = true;
        this.offered = [...this.offered.filter((s) => s.via === "config" && !ids.has(s.id)), ...fresh].slice(0, MAX_CHOICES);
        return true;
      }
      case "current_mode_update": {
        // With configOptions the mode is one of them (its config_option_update follows).
        const id = update.currentModeId;
        this.offered = this.offered.map((s) =>
          (s.via === "mode" || s.category === "mode") && isChoiceText(id) ? { ...s, current: id } : s,
        );
        return true;
      }
      default:
        return false;
    }
  }

  /** Sets `id` to `value` on the session (one the agent offers), then keeps it as the user's choice. */
  async choose(conn: AcpConnection, sessionId: string, id: string, value: string): Promise<void> {
    const setting = this.offered.find((s) => s.id === id);
    if (!setting) throw new Error(`tine: ${conn.name} offers no setting "${id}"${this.offeredNames()}`);
    if (!setting.options.some((o) => o.value === value))
      throw new Error(`tine: ${conn.name} offers no "${value}" for ${setting.name} (${setting.options.map((o) => o.value).join(", ")})`);
    await this.send(conn, sessionId, setting.via, id, value);
    this.chosen = { ...this.chosen, [id]: value };
    this.gone = [];
  }

  /**
   * The user's choices set on a session just taken up (resumed, loaded, forked), those the agent
   * still offers; what it no longer offers is left out, never sent, and `shown` says so.
   */
  async restore(conn: AcpConnection, sessionId: string): Promise<void> {
    const dropped: string[] = [];
    for (const [id, value] of Object.entries(this.chosen)) {
      const setting = this.offered.find((s) => s.id === id);
      if (!setting?.options.some((o) => o.value === value)) {
        dropped.push(`${setting?.name ?? id} "${value}"`);
        continue;
      }
      if (setting.current !== value) await this.send(conn, sessionId, setting.via, id, value);
    }
    this.gone = dropped;
  }

  private async send(conn: AcpConnection, sessionId: string, via: Offered["via"], id: string, value: string): Promise<void> {
    if (via === "mode" || !this.configs) {
      await conn.setMode(sessionId, value);
      this.offered = this.offered.map((s) => (s.id === id ? { ...s, current: value } : s));
    } else this.took({ configOptions: await conn.setConfigOption(sessionId, id, value) });
  }

  private offeredNames(): string {
    return this.offered.length ? ` (it offers ${this.offered.map((s) => s.id).join(", ")})` : ": it has offered none";
  }
}

/** One select option as tine lists it; any other kind, or one with bad ids, is left out. */
function settingOf(o: SessionConfigOption): Offered[] {
  if (o.type !== "select" || !isChoiceText(o.id) || !Array.isArray(o.options)) return [];
  const flat = o.options.flatMap((x) => ("group" in x && Array.isArray(x.options) ? x.options : [x as { value: string }]));
  const options = flat
    .filter((x) => isChoiceText(x.value))
    .slice(0, MAX_OPTIONS)
    .map((x) => {
      const { value, name, description } = x as { value: string; name?: unknown; description?: unknown };
      return {
        value,
        name: typeof name === "string" ? oneLine(name, 80) : value,
        description: typeof description === "string" ? oneLine(description) : null,
      };
    });
  return [
    {
      id: o.id,
      name: typeof o.name === "string" ? oneLine(o.name, 60) : o.id,
      category: typeof o.category === "string" ? oneLine(o.category, 40) : null,
      current: isChoiceText(o.currentValue) ? o.currentValue : null,
      options,
      via: "config",
    },
  ];
}

function modeSetting(modes: SessionModeState): Offered[] {
  const options = (Array.isArray(modes.availableModes) ? modes.availableModes : [])
    .filter((m) => isChoiceText(m.id))
    .slice(0, MAX_OPTIONS)
    .map((m) => ({
      value: m.id,
      name: typeof m.name === "string" ? oneLine(m.name, 80) : m.id,
      description: typeof m.description === "string" ? oneLine(m.description) : null,
    }));
  if (!options.length) return [];
  const current = isChoiceText(modes.currentModeId) ? modes.currentModeId : null;
  return [{ id: MODE_ID, name: "Mode", category: "mode", current, options, via: "mode" }];
}
