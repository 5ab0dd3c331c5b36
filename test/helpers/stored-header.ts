/** A transcript's header line as tine writes it, with `extra` fields changed or added (store tests). */
import { FORMAT_VERSION } from "../../node/store/records.ts";

export const headerLine = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    t: "header",
    v: FORMAT_VERSION,
    id: "a",
    num: 1,
    title: "T",
    created: 1,
    cwd: "/p",
    model: "m",
    parent: null,
    ...extra,
  });
