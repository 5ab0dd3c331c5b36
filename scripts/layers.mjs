/**
 * The layer order of node/ (README.md, Layout), written once: bottom to top, folders on one step
 * import neither of each other. `node scripts/layers.mjs` writes it into biome.json as one
 * `noRestrictedImports` override per folder (a folder may import only the folders below it), so
 * `npm run lint` fails on an import the wrong way; a new folder is refused everywhere until it
 * is given a step here.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Bottom to top; each step's folders with what they are, for the lint message. */
export const LAYERS = [
  [["util", "small rules shared across folders"]],
  [["core", "the words every room shares"]],
  [["tools", "the client tools and the environment they act in"]],
  [
    ["mcp", "MCP servers"],
    ["snapshot", "the snapshot store"],
    ["usage", "what requests used and cost"],
    ["sandbox", "the sandboxed environment (bubblewrap)"],
  ],
  [["context", "mentions, instructions, the files followed"]],
  [["chat", "threads and their tree"]],
  [["providers", "tine's agent on the Messages API"]],
  [["store", "transcripts on disk"]],
  [
    ["compact", "compaction as a branch"],
    ["claude-code", "the Claude Code CLI"],
    ["acp", "agents over the Agent Client Protocol"],
  ],
  [["nvim", "Neovim's side of the channel"]],
  [["view", "buffers, rendering, the list"]],
  [["worktree", "the code side: worktrees, code actions, the recorder"]],
  [
    ["fork", "the one way forks are made"],
    ["review", "a turn's edits reviewed hunk by hunk"],
  ],
  [["rpc", "the requests Lua may make"]],
  [["host", "the composition root"]],
];

function override(step, name, what) {
  const below = LAYERS.slice(0, step)
    .flat()
    .map(([n]) => n);
  const allowed = below.length ? below.map((n) => `${n}/`).join(", ") : "nothing else in node/";
  return {
    includes: [`node/${name}/**`, "!**/*.test.ts"],
    linter: {
      rules: {
        style: {
          noRestrictedImports: {
            level: "error",
            options: {
              patterns: [
                {
                  // "../*" with exceptions never fires in Biome 2.5; "../*/*" does.
                  group: ["../*/*", ...below.map((n) => `!../${n}/*`)],
                  message: `node/${name}/ (${what}) is layer ${step + 1} of the order in README.md (Layout): it imports only ${allowed}; what it needs of a room above moves down (to core/ when rooms share it) or is passed in.`,
                },
              ],
            },
          },
        },
      },
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = join(import.meta.dirname, "..", "biome.json");
  const biome = JSON.parse(readFileSync(path, "utf8"));
  const layered = (o) => o.linter?.rules?.style?.noRestrictedImports?.options?.patterns;
  const others = (biome.overrides ?? []).filter((o) => !layered(o));
  biome.overrides = [...others, ...LAYERS.flatMap((folders, step) => folders.map(([name, what]) => override(step, name, what)))];
  writeFileSync(path, `${JSON.stringify(biome, null, 2)}\n`);
  console.log("tine: wrote the layer order into biome.json");
}
