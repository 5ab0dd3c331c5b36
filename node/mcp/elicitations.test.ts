/** Where a server's question goes, and how it is answered: only by the user, or dropped when it is moot. */
import { describe, expect, it } from "vitest";
import type { ThreadId } from "../core/ids.ts";
import { Elicitations } from "./elicitations.ts";

const A = "thread-a" as ThreadId;
const B = "thread-b" as ThreadId;
const params = {
  message: "Your name?",
  requestedSchema: { type: "object", properties: { name: { type: "string", default: "Ann" } }, required: ["name"] },
};

function hub() {
  const waiting: ThreadId[] = [];
  const told: string[] = [];
  const elicitations = new Elicitations({ waiting: (t) => void waiting.push(t), tell: (t) => void told.push(t) });
  return { elicitations, waiting, told };
}

/** A call of `thread` on `server` that runs until `end` is called. */
function call(e: Elicitations, server: string, thread: ThreadId) {
  let end!: () => void;
  const done = e.during(server, thread, () => new Promise<void>((r) => (end = r)));
  return {
    end: () => {
      end();
      return done;
    },
  };
}

describe("Elicitations", () => {
  it("a question goes to the thread whose call runs on that server, waits for its user, and takes only an answer that fits", async () => {
    const { elicitations: e, waiting } = hub();
    const other = call(e, "other", B);
    const running = call(e, "srv", A);
    const answer = e.ask("srv", params, new AbortController().signal);
    expect(waiting).toEqual([A]);
    expect(e.next(B)).toBeNull();
    const shown = e.next(A)!;
    expect(shown).toMatchObject({ server: "srv", message: "Your name?", fields: [{ name: "name", default: "Ann", required: true }] });
    expect(e.answer(A, shown.key, "accept", { name: "" })).toEqual({ status: "invalid", problem: "name is required" });
    expect(e.answer(B, shown.key, "accept", { name: "Bo" })).toEqual({ status: "gone" });
    expect(e.answer(A, shown.key, "accept", { name: "Bo" })).toEqual({ status: "answered" });
    expect(await answer).toEqual({ action: "accept", content: { name: "Bo" } });
    expect(e.next(A)).toBeNull();
    expect(e.answer(A, shown.key, "decline", {})).toEqual({ status: "gone" });
    await running.end();
    await other.end();
  });

  it("decline and cancel go back as they are", async () => {
    const { elicitations: e } = hub();
    const running = call(e, "srv", A);
    const declined = e.ask("srv", params, new AbortController().signal);
    e.answer(A, e.next(A)!.key, "decline", { name: "ignored" });
    expect(await declined).toEqual({ action: "decline" });
    const cancelled = e.ask("srv", params, new AbortController().signal);
    e.answer(A, e.next(A)!.key, "cancel", {});
    expect(await cancelled).toEqual({ action: "cancel" });
    await running.end();
  });

  it("a malformed or huge form, or a question outside any call, is told to the user and declined; nobody is asked", async () => {
    const { elicitations: e, waiting, told } = hub();
    expect(await e.ask("srv", params, new AbortController().signal)).toEqual({ action: "decline" });
    expect(told.pop()).toBe('tine: the MCP server srv asked a question outside any tool call of a thread. It was answered "decline".');
    const running = call(e, "srv", A);
    const bad = { message: "m", requestedSchema: { type: "object", properties: { x: { type: "object" } } } };
    expect(await e.ask("srv", bad, new AbortController().signal)).toEqual({ action: "decline" });
    expect(told.pop()).toMatch(/^tine: the MCP server srv asked a question tine cannot show: field "x": its type "object"/);
    expect(waiting).toEqual([]);
    await running.end();
  });

  it("a question the server withdraws, or whose call ended, is dropped and answered cancel", async () => {
    const { elicitations: e } = hub();
    const running = call(e, "srv", A);
    const withdraw = new AbortController();
    const withdrawn = e.ask("srv", params, withdraw.signal);
    withdraw.abort();
    expect(await withdrawn).toEqual({ action: "cancel" });
    expect(e.next(A)).toBeNull();
    const moot = e.ask("srv", params, new AbortController().signal);
    await running.end();
    expect(await moot).toEqual({ action: "cancel" });
    expect(e.next(A)).toBeNull();
  });
});
