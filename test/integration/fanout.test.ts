/**
 * Fork ×N (issue 32) as a user meets it in real Neovim, a real git repository, the real sandbox
 * and the mock: `fanout()` makes N background forks, each in a worktree of its own and unattended,
 * each sent the prompt after the source's history (so they read the source's cached prefix), each
 * editing only its own files and waiting, done, for the user's choice; `models` runs them on the
 * models given in turn; `@fork×N`, `:ForkThread --n N` and a count on the list's `f` make them from
 * the editor; bad input is refused with a clear message and makes nothing.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, inject, it } from "vitest";
import { readsCacheOf } from "../helpers/cache-prefix.ts";
import { blocks, bodies, exchange, type RequestBody, texts, typeAndSend } from "../helpers/chat-driver.ts";
import { firstThread, HELLO, withGitProject } from "../helpers/code-session.ts";
import { userGitState } from "../helpers/git-project.ts";
import { type Session, tempProjects } from "../helpers/neovim.ts";
import { response, textReply } from "../mock-anthropic/script.ts";

const nv = inject("nvim");
const project = tempProjects();

/** The last user message's text blocks, joined. */
const lastText = (b: RequestBody) =>
  blocks(b.messages.at(-1))
    .map((x) => (x.type === "text" ? x.text : x.type))
    .join("|");

/**
 * The text the user typed in the last user message: its mentions' context blocks left out, and the
 * report of a background fork that ended before it was sent (it goes first).
 */
const typedText = (b: RequestBody) =>
  blocks(b.messages.at(-1))
    .flatMap((x) => (x.type === "text" && !x.text.startsWith("<context") && !x.text.startsWith("<fork-report") ? [x.text] : []))
    .at(0);

/** The threads other than `sourceId`, by number (the order they were made). */
async function forksOf(s: Session, sourceId: string) {
  return (await s.threads()).filter((t) => t.id !== sourceId).sort((a, b) => a.num - b.num);
}

/** Waits until background fork `id` (no display) holds `reply` as its last message and is idle. */
async function turnEnded(s: Session, id: string, reply: string): Promise<void> {
  await s.until(`fork ${id} to end its turn with ${reply}`, async () => texts((await s.messages(id)).slice(-1))[0] === reply);
  await s.waitForStatus(id, "idle");
}

/** Waits (bounded) until the mock has received `count` thread requests in all. */
const requestsArrived = (s: Session, count: number) =>
  s.until(`${count} requests (${s.mock.requests.length} so far)`, async () => s.mock.requests.length >= count);

/**
 * The request whose last user message was typed `text`, once it has arrived. Found by its text, not
 * by a count of requests: another thread's request (a fork of the test's) may come between.
 */
async function requestTyped(s: Session, text: string): Promise<RequestBody> {
  await s.until(`the request typed ${JSON.stringify(text)}`, async () => bodies(s).some((b) => typedText(b) === text));
  return bodies(s).find((b) => typedText(b) === text)!;
}

describe(`fan-out (${nv.version})`, () => {
  it("fanout(id, p, { n = 3 }): 3 unattended forks in worktrees of their own, each sent p after the source's history, each editing only its own files, each waiting for the choice", async () => {
    // Approvals as set up by default: a fork that were not unattended would wait on its edit.
    await withGitProject(
      nv,
      project(),
      async (s, before) => {
        const id = await firstThread(s);
        const sourceRequest = bodies(s)[0]!;
        const sourceMessages = await s.messages(id);
        // Each fork's first request edits hello.txt, writing a word of its own; then it ends its turn.
        const words = ["alpha", "beta", "gamma"];
        s.mock.otherwise((req) => {
          const last = blocks(req.body.messages.at(-1) as RequestBody["messages"][number]);
          if (last.some((b) => b.type === "tool_result")) return textReply("Edited.");
          const word = words.shift() ?? "extra";
          return response([
            { toolUse: { id: `e-${word}`, name: "edit_file", input: { path: "hello.txt", find: "hello", replace: word } } },
          ]);
        });
        const ids = await s.lua<string[]>(`return require("tine").fanout(..., "edit your copy", { n = 3 })`, id);
        assert.equal(ids.length, 3);
        assert.match(
          await s.notified(/forks of/),
          /^tine: 3 forks of ".*" run the prompt, unattended \(🔒\), each in a worktree of its own/,
        );
        // A background fork has no display: its turn has ended once it holds the reply to its edit.
        for (const f of ids) await turnEnded(s, f, "Edited.");

        const forks = await Promise.all(ids.map((f) => s.thread(f)));
        const cwds = forks.map((f) => f.cwd!);
        assert.equal(new Set([...cwds, s.cwd]).size, 4, `distinct worktrees: ${cwds.join(", ")}`);
        for (const f of forks) {
          assert.equal(f.parent_id, id);
          assert.equal(f.unattended, true, `${f.title} is unattended`);
          assert.ok(existsSync(f.cwd!), f.cwd!);
          // Its turn's change list (the snapshot at its end) names the file it edited.
          await s.until(`${f.title}'s change list`, async () => (await s.thread(f.id)).changed_files.join() === "hello.txt");
        }
        // Each worktree holds its own fork's word only: none saw another's edit, none still says hello.
        const contents = cwds.map((c) => readFileSync(join(c, "hello.txt"), "utf8"));
        assert.deepEqual(contents.slice().sort(), ["alpha from a fixture\n", "beta from a fixture\n", "gamma from a fixture\n"]);
        // The project's files and its repository as they were.
        assert.equal(readFileSync(join(s.cwd, "hello.txt"), "utf8"), HELLO);
        assert.equal(userGitState(s.cwd).status, before.status);

        // Three first requests (then three after the edits): the prompt last, the source's history before it.
        const first = bodies(s).filter((b) => b.messages.length === 3);
        assert.equal(first.length, 3);
        for (const b of first) {
          assert.equal(lastText(b), "edit your copy");
          assert.deepEqual(texts(b.messages.slice(0, -1)), texts(sourceMessages));
          assert.ok(readsCacheOf(b, sourceRequest), "the fork's request reads the source's cached prefix");
        }

        // Done, they wait for the choice: none reported back or ended, even after the source's next turn.
        await s.open(id);
        await exchange(s, id, "and now?", "Still here.");
        const next = bodies(s).at(-1)!;
        assert.equal(lastText(next), "and now?", "no report went with the source's next message");
        assert.doesNotMatch(await s.display(id), /📨/);
        assert.deepEqual(
          (await forksOf(s, id)).map((f) => f.id),
          ids,
        );
        // The source's own history: its exchange, then this one; nothing of the forks'.
        assert.deepEqual(texts((await s.messages(id)).slice(0, 2)), texts(sourceMessages));
        assert.equal((await s.messages(id)).length, 4);
      },
      { tools_needing_approval: ["edit_file", "bash_command"] },
    );
  });

  it("models in turn, @fork×2, :ForkThread --n 2 and 2f in the list make their forks; bad n, an empty prompt and :ForkThread! --n are refused, nothing made", async () => {
    await withGitProject(
      nv,
      project(),
      async (s) => {
        const id = await firstThread(s);
        s.mock.otherwise(() => textReply("Forked."));
        const count = async () => (await s.threads()).length;
        const requests = () => s.mock.requests.length;

        // Bad input: a clear message, no fork, no request.
        const fanout = (prompt: string, opts: string) =>
          s.lua(`local id, prompt = ...; return require("tine").fanout(id, prompt, ${opts})`, id, prompt);
        await assert.rejects(fanout("p", "{ n = 0 }"), /a fan-out makes 1 to 8 forks \(fanout_max\), not 0/);
        // A model setup does not have (as :Tine model offers them): refused, naming it.
        await assert.rejects(fanout("p", '{ models = { "m-a", "no-such-model" } }'), /no model "no-such-model" in setup: the models are /);
        await assert.rejects(fanout("p", "{ n = 9 }"), /a fan-out makes 1 to 8 forks \(fanout_max\), not 9/);
        await assert.rejects(fanout("  ", "{ n = 2 }"), /a fan-out needs a prompt/);
        await s.cmd("ForkThread! --n 2 x");
        await s.notified(/:ForkThread --n fans out from the thread as it is now: without ! or --wait/);
        await s.cmd("ForkThread --n 9 x");
        await s.notified(/not 9/);
        // One message says the range, whichever end is passed.
        await s.cmd("ForkThread --n 0 x");
        await s.notified(/a fan-out makes 1 to 8 forks \(fanout_max\), not 0/);
        // A mistyped flag or a count that is no number is said, never sent as the prompt.
        await s.cmd("ForkThread --n x y");
        await s.notified(/:ForkThread --n takes how many forks, a number \(got "x"\)/);
        await s.cmd("ForkThread --unattnded try");
        await s.notified(/:ForkThread has no flag --unattnded \(it takes --wait, --bg, --worktree, --unattended, --n N; -- ends them\)/);
        await typeAndSend(s, "@fork×0 keep this draft");
        await s.notified(/not 0/);
        assert.deepEqual(await s.lines(await s.currentBuf()), ["@fork×0 keep this draft"], "the draft stays in the input");
        await s.setLines(await s.currentBuf(), [""]);
        assert.equal(await count(), 1);
        assert.equal(requests(), 1);

        // models: the forks run on them in turn.
        const onModels = await s.lua<string[]>(
          `return require("tine").fanout(..., "which model?", { n = 3, models = { "m-a", "m-b" } })`,
          id,
        );
        await requestsArrived(s, 4);
        assert.deepEqual(await Promise.all(onModels.map(async (f) => (await s.thread(f)).model)), ["m-a", "m-b", "m-a"]);
        assert.deepEqual(
          bodies(s)
            .slice(1)
            .map((b) => b.model)
            .sort(),
          ["m-a", "m-a", "m-b"],
        );

        // Every form's prompt names @file:hello.txt: each fork is sent the file with it, as a message typed in the input is.
        // @fork ×2 in the input (a space before the sign is still the fan-out).
        await typeAndSend(s, "@fork ×2 typed prompt @file:hello.txt");
        await requestsArrived(s, 6);
        // :ForkThread --n 2 (the input still has the focus).
        await s.cmd("ForkThread --n 2 command prompt @file:hello.txt");
        await requestsArrived(s, 8);
        // Without a prompt, :ForkThread --n asks it, as :ForkThread does.
        await s.answerInput("asked prompt @file:hello.txt");
        await s.cmd("ForkThread --n 2");
        await requestsArrived(s, 10);
        assert.match((await s.asked()).prompt ?? "", /Fan-out prompt \(2 forks\)/);
        // 2f in the list asks the prompt.
        await s.openList();
        await s.answerInput("list prompt @file:hello.txt");
        await s.onListLine(1, "2f");
        await requestsArrived(s, 12);
        assert.match((await s.asked()).prompt ?? "", /Fan-out prompt \(2 forks\)/);
        // fanout() itself.
        await s.lua(`return require("tine").fanout(..., "api prompt @file:hello.txt", { n = 2 })`, id);
        await requestsArrived(s, 14);

        const sent = bodies(s).slice(4);
        const prompts = sent.map(typedText).sort();
        const each = (p: string) => [`${p} prompt @file:hello.txt`, `${p} prompt @file:hello.txt`];
        assert.deepEqual(prompts, [...each("api"), ...each("asked"), ...each("command"), ...each("list"), ...each("typed")]);
        for (const b of sent) assert.match(lastText(b), /<context kind="file" path="hello\.txt"[^>]*>\nhello from a fixture/, lastText(b));
        const forks = await forksOf(s, id);
        assert.equal(forks.length, 13);
        for (const f of forks) {
          assert.equal(f.parent_id, id);
          assert.equal(f.unattended, true);
          assert.notEqual(f.cwd, s.cwd);
        }
        assert.equal(new Set(forks.map((f) => f.cwd)).size, 13, "a worktree each");
        // A plain background fork's prompt carries its mentions too.
        await s.open(id);
        await s.cmd("ForkThread --bg bg prompt @file:hello.txt");
        const bg = await requestTyped(s, "bg prompt @file:hello.txt");
        assert.match(lastText(bg), /<context kind="file" path="hello\.txt"[^>]*>\nhello from a fixture/);
        // The prompts' mentions went to the forks only: the source follows no file, and its next message carries none.
        assert.doesNotMatch(await s.display(id), /📎 Following/);
        await typeAndSend(s, "the source goes on");
        const next = await requestTyped(s, "the source goes on");
        assert.doesNotMatch(lastText(next), /<context/);
      },
      { fanout_max: 8, models: ["m-a", "m-b"] },
    );
  });
});
