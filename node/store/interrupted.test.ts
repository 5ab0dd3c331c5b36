/** A thread a quit cut off reads as interrupted in the list until its next message, scanned whole or from where the index stopped. */
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
});
