/**
 * A thread a quit cut off reads as interrupted in the list until its next message, and one holding
 * queued messages says how many, scanned whole or from where the index stopped.
 */
import { appendFileSync, lstatSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { headerLine } from "../../test/helpers/stored-header.ts";
import { tempFolders } from "../../test/helpers/temp-folders.ts";
import { checkScanState } from "./scan-index.ts";
import { scanLog } from "./summary.ts";

const folder = tempFolders("tine-interrupted-");
const line = (r: unknown) => `${JSON.stringify(r)}\n`;
const user = (text: string) => line({ t: "append", m: { role: "user", content: [{ type: "text", text }] } });

describe("an interrupted thread in the list", () => {
  it("is interrupted after the mark, and no longer once a message follows", () => {
    const id = "11111111-1111-4111-8111-111111111111";
    const path = join(folder(), `${id}.jsonl`);
    writeFileSync(path, `${headerLine({ id })}\n${user("go")}${line({ t: "streamed", at: 0, text: "Looking" })}`);
    const first = scanLog(path, lstatSync(path), null);
    expect(first.summary?.interrupted).toBe(false);
    appendFileSync(path, line({ t: "interrupted" }));
    const cut = scanLog(path, lstatSync(path), first);
    expect(cut.summary?.interrupted).toBe(true);
    expect(scanLog(path, lstatSync(path), null).summary?.interrupted).toBe(true);
    // As the list's index keeps it between scans.
    expect(checkScanState(`${id}.jsonl`, JSON.parse(JSON.stringify(cut)))?.summary?.interrupted).toBe(true);
    appendFileSync(path, user("go on"));
    expect(scanLog(path, lstatSync(path), cut).summary?.interrupted).toBe(false);
  });

  it("counts the messages its queue holds unsent, as its last queue record says, scanned whole or from where the index stopped", () => {
    const id = "22222222-2222-4222-8222-222222222222";
    const path = join(folder(), `${id}.jsonl`);
    writeFileSync(path, `${headerLine({ id })}\n${user("go")}${line({ t: "queue", items: [{ text: "one" }] })}`);
    const first = scanLog(path, lstatSync(path), null);
    expect(first.summary?.queued).toBe(1);
    appendFileSync(path, line({ t: "queue", items: [{ text: "one" }, { text: "two", now: true }] }));
    const more = scanLog(path, lstatSync(path), first);
    expect(more.summary?.queued).toBe(2);
    expect(checkScanState(`${id}.jsonl`, JSON.parse(JSON.stringify(more)))?.summary?.queued).toBe(2);
    // An index entry written before queues were counted is scanned again.
    const { queued: _, ...older } = more.summary!;
    expect(checkScanState(`${id}.jsonl`, JSON.parse(JSON.stringify({ ...more, summary: older })))).toBeNull();
    appendFileSync(path, `${user("one|two")}${line({ t: "queue", items: [] })}`);
    expect(scanLog(path, lstatSync(path), more).summary?.queued).toBe(0);
    expect(scanLog(path, lstatSync(path), null).summary?.queued).toBe(0);
  });
});
