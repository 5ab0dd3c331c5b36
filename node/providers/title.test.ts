import { describe, expect, it } from "vitest";
import { reportBlock } from "../chat/prompts.ts";
import { History } from "../core/history.ts";
import { assistantMessage, entry, userMessage } from "../core/native.ts";
import { lastExchange } from "./title.ts";

const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

describe("the exchange a title is asked from", () => {
  it("holds the user's words, not a fork's report that came with them", () => {
    const history = History.of([
      entry(
        userMessage([
          { type: "text", text: reportBlock({ from: "Look at the config", text: "That file is fine." }) },
          { type: "text", text: "now rename the module" },
        ]),
      ),
      entry(assistantMessage([{ type: "text", text: "Renamed." }]), { stopReason: "end_turn", usage }),
    ]);
    expect(lastExchange(history)).toEqual({ prompt: "now rename the module", reply: "Renamed." });
  });
});
