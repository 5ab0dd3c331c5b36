/**
 * An ACP session's settings as `:Tine model` lists and sets them (settings.ts), with a fake
 * connection recording what would be sent: what an agent offers (its select configOptions, or its
 * modes), updates, a choice refused before anything is sent, and choices set again on a new session.
 */
import { describe, expect, it } from "vitest";
import type { AcpConnection } from "./connection.ts";
import { AcpSettings } from "./settings.ts";

const MODEL = {
  id: "model",
  name: "Model",
  category: "model",
  type: "select" as const,
  currentValue: "default",
  options: [
    { value: "default", name: "Default" },
    { value: "sonnet", name: "Sonnet\n5", description: "fast" },
  ],
};

function fakeConn() {
  const sent: string[] = [];
  const conn = {
    name: "claude",
    async setConfigOption(_s: string, id: string, value: string) {
      sent.push(`config ${id}=${value}`);
      return [{ ...MODEL, currentValue: value }];
    },
    async setMode(_s: string, value: string) {
      sent.push(`mode ${value}`);
    },
  } as unknown as AcpConnection;
  return { conn, sent };
}

describe("an ACP session's settings", () => {
  it("lists the agent's select options in one line each, leaves out other kinds and bad ids, and sets one it offers", async () => {
    const s = new AcpSettings(undefined);
    s.took({
      configOptions: [MODEL, { id: "flag", name: "Flag", type: "boolean", currentValue: true } as never, { ...MODEL, id: "bad\nid" }],
    });
    expect(s.list()).toEqual([
      {
        id: "model",
        name: "Model",
        category: "model",
        current: "default",
        options: [
          { value: "default", name: "Default", description: null },
          { value: "sonnet", name: "Sonnet 5", description: "fast" },
        ],
      },
    ]);
    const { conn, sent } = fakeConn();
    await expect(s.choose(conn, "s1", "model", "opus")).rejects.toThrow('tine: claude offers no "opus" for Model (default, sonnet)');
    await expect(s.choose(conn, "s1", "effort", "low")).rejects.toThrow('tine: claude offers no setting "effort" (it offers model)');
    expect(sent).toEqual([]);
    expect(s.choices).toBeUndefined();
    await s.choose(conn, "s1", "model", "sonnet");
    expect(sent).toEqual(["config model=sonnet"]);
    expect(s.choices).toEqual({ model: "sonnet" });
    expect(s.list()[0]!.current).toBe("sonnet");
    expect(s.shown()).toBe("Model: Sonnet 5");
  });

  it("sets the stored choices again on a new session, what the agent still offers; a modes-only agent's mode by session/set_mode", async () => {
    const fresh = new AcpSettings({ model: "sonnet", gone: "x" });
    fresh.took({ configOptions: [MODEL] });
    const { conn, sent } = fakeConn();
    await fresh.restore(conn, "s2");
    expect(sent).toEqual(["config model=sonnet"]);
    expect(fresh.shown()).toBe('Model: Sonnet 5 · no longer offered: gone "x" (the agent\'s own is used)');

    const modes = new AcpSettings(undefined);
    modes.took({
      modes: {
        currentModeId: "ask",
        availableModes: [
          { id: "ask", name: "Ask" },
          { id: "code", name: "Code" },
        ],
      },
    });
    expect(modes.list().map((x) => [x.id, x.current])).toEqual([["mode", "ask"]]);
    expect(modes.apply({ sessionUpdate: "current_mode_update", currentModeId: "code" })).toBe(true);
    expect(modes.list()[0]!.current).toBe("code");
    await modes.choose(conn, "s3", "mode", "ask");
    expect(sent.at(-1)).toBe("mode ask");
    expect(modes.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } })).toBe(false);
  });
});
