/**
 * Persistence and the clock: streamed text is written when the host wakes the store at
 * `nextWake`, never by the sync after a batch of messages (a delta), and a stored thread cut
 * mid-reply comes back with that text, marked interrupted.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { exchanges, storeWorld, userTurn } from "../../test/helpers/store-world.ts";
import { Persistence } from "./persistence.ts";
import { SESSION_ENDED } from "./replay.ts";
import { ThreadStore } from "./store.ts";
import { STREAMED_TEXT_EVERY_MS } from "./sync.ts";

let dataDir: string;
let now = 0;
const clock = { now: () => now };
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "tine-persist-"));
  now = 1_000_000;
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const reloaded = (id: string) => new Persistence(new ThreadStore(dataDir, "/project"), "m").store.load(id);

it("streamed text is written when the store is woken at nextWake, not by the syncs of deltas; it comes back marked interrupted", () => {
  const w = storeWorld(dataDir, clock);
  const id = w.root(exchanges("root", 1));
  w.say(id, [userTurn("tell me more")]);
  expect(w.persistence.nextWake()).toBeNull();
  w.streaming(id, "The first words");
  expect(w.persistence.nextWake()).toBe(now + STREAMED_TEXT_EVERY_MS);
  for (let i = 0; i < 50; i++) {
    now += 100;
    w.streaming(id, `The first words and ${i} more`);
  }
  expect(reloaded(id).raw.streamed).toBe("");
  // Woken early: nothing is due yet.
  w.persistence.sync(w.chat, 1_000_000 + STREAMED_TEXT_EVERY_MS - 1);
  expect(reloaded(id).raw.streamed).toBe("");
  w.persistence.sync(w.chat, now);
  expect(reloaded(id).raw.streamed).toBe("The first words and 49 more");
  expect(w.persistence.nextWake()).toBeNull();
  const last = reloaded(id).history.last()!;
  expect(last.message).toEqual({ role: "assistant", content: [{ type: "text", text: "The first words and 49 more" }] });
  expect(last.meta).toEqual(SESSION_ENDED);
});
