/**
 * What the fan-out tests share: forks answered by the mock with a file of their own, and
 * compare() read until every fork is done.
 */
import { response, textReply } from "../mock-anthropic/script.ts";
import type { RecordedRequest } from "../mock-anthropic/server.ts";
import type { Session } from "./neovim.ts";

export type Compared = {
  id: string;
  fanout: string;
  num: number;
  title: string;
  state: string;
  cwd: string;
  files: string[];
  added: number;
  removed: number;
  check?: { ok: boolean; code: number | null; output: string };
  model: string | null;
  cost_usd: number | null;
  cache_read: number;
};

/**
 * Each fork's first request is answered with a command that makes `<word>.txt` and adds a line to
 * hello.txt (the words in the order the requests come: which fork gets which is not known), the
 * request after it with "Done.".
 */
export function forksWrite(s: Session, words: string[]): void {
  let next = 0;
  s.mock.otherwise((req: RecordedRequest) => {
    const last = req.body.messages.at(-1)!;
    const answered = Array.isArray(last.content) && last.content.some((b) => b.type === "tool_result");
    if (answered) return textReply("Done.");
    const word = words[next++ % words.length]!;
    const command = `printf '${word}\\n' > ${word}.txt && printf 'by ${word}\\n' >> hello.txt`;
    return response([{ toolUse: { id: `b-${word}`, name: "bash_command", input: { command } } }]);
  });
}

export const compare = (s: Session, ask: string | string[]) => s.lua<Compared[]>(`return require("tine").compare(...)`, ask);

/** compare(ask) once every fork is done (its turn and its check ended). */
export async function whenDone(s: Session, ask: string | string[]): Promise<Compared[]> {
  let forks: Compared[] = [];
  await s.until("every fork of the fan-out is done", async () => {
    forks = await compare(s, ask);
    return forks.length > 0 && forks.every((f) => f.state === "done");
  });
  return forks;
}

export const byFile = (forks: Compared[], file: string) => forks.find((f) => f.files.includes(file))!;

/** From now on vim.fn.confirm answers `n` and keeps each question in _G.tine_confirmed. */
export const confirmAnswering = (n: number) =>
  `_G.tine_confirmed = {}; vim.fn.confirm = function(q) table.insert(_G.tine_confirmed, q); return ${n} end`;
