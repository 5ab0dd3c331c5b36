// `node scripts/record.mjs`: the README's pictures (doc/media/*.svg), made again from a real
// session whenever the UI changes. It runs the offline demo (dist/mock-demo.cjs, as `npm run try`
// does without a key) in Neovim inside tmux at a fixed size, in a throwaway git project, and drives
// it through the headline moments: a fork opening beside its source while it streams, the thread
// tree, and a worktree fork's code merged back. Every change on screen is captured
// (`tmux capture-pane -e`) into an asciicast v2 file (.cache/record/tour.cast, to replay with
// asciinema), and each moment's frame is turned into an SVG by svg-term-cli, fetched with npx
// (pinned; not a dependency). Needs tmux, git and network for npx the first time. Not run by `npm test`.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { findNvim } from "./nvim.mjs";
import { tryInit } from "./try-init.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const SVG_TERM = "svg-term-cli@2.1.1";
const WIDTH = 160;
const HEIGHT = 44;
/** How often the screen is captured. */
const FRAME_MS = 100;
/** A step that takes longer than this is a failed recording (the screen is printed). */
const STEP_TIMEOUT_MS = 30_000;

const media = join(root, "doc", "media");
const castFile = join(root, ".cache", "record", "tour.cast");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

spawnSync("node", [join(root, "scripts/build.mjs")], { stdio: "inherit" });
for (const tool of ["tmux", "git"])
  if (spawnSync(tool, ["-V"]).error && spawnSync(tool, ["--version"]).error) throw new Error(`record: ${tool} is needed`);

const work = mkdtempSync(join(tmpdir(), "tine-record-"));
const project = join(work, "project");
const socket = `tine-record-${process.pid}`;
const nvimSocket = join(work, "nvim.sock");
let demo = null;

async function record() {
  makeProject();
  demo = spawn(process.execPath, [join(root, "dist/mock-demo.cjs")], {
    // Slower than `npm run try`'s pace: the fork opens while its source still streams.
    env: { ...process.env, TINE_DEMO_PACE_MS: "45" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise((resolve) => demo.stdout.once("data", (d) => resolve(String(d).trim())));
  startNeovim(url);
  const screen = new Screen();
  void screen.run();
  const moments = {};
  try {
    await screen.until("the sidebar", (s) => s.includes("Type below and send"));
    // 1. A question, and while its reply streams, a fork beside it with another question.
    await type("ihow should we parse the records?");
    await keys("Escape", "Enter");
    await screen.until("the reply streaming", (s) => s.includes("so you can try"));
    await type("i@fork what if we used a hash map?");
    await keys("Escape", "Enter");
    // The moment: the last frame in which both stream (the most of each reply on screen).
    const bothStream = (s) => count(s, "streaming ·") === 2;
    await screen.until("the fork streaming beside its source", bothStream);
    moments["fork-while-streaming"] = await screen.lastWhile(bothStream);
    await screen.until("both replies done", (s) => count(s, "awaiting approval") === 2);

    // 2. A fork in a git worktree of its own, editing TODO.md; its edit approved.
    await focus("^tine #1 .*%[input%]$");
    await type("i@fork --worktree @file:TODO.md write the tests");
    await keys("Escape", "Enter");
    await screen.until("the worktree fork's edit waiting", (s) => s.includes("🔧 edit_file: TODO.md"));
    await focus("^tine #3 .*%[input%]$");
    await keys("C-y");
    await idle(3);

    // 3. The thread tree.
    await type(":Tine threads");
    await keys("Enter");
    moments["thread-tree"] = await screen.until("the list with the worktree fork", (s) => s.includes("⎇ worktrees/"));
    await keys("q");
    await screen.until("the list closed", (s) => !s.includes("⎇ worktrees/"));

    // 4. The worktree fork promoted (once its parent's turn is done: its `ls` approved): its code
    // merged into the project, TODO.md shows it.
    await focus("^tine #1 .*%[input%]$");
    await keys("C-y");
    await idle(1);
    await focus("^tine #3 [^[]*$");
    await keys("g", "P");
    await screen.until("the merge", (s) => /its code is merged: \d+ files? changed/.test(s));
    await remote("vim.cmd('checktime')");
    moments["worktree-merged"] = await screen.until("TODO.md with the new line", (s) => s.includes("- write the tests"));
    await sleep(FRAME_MS * 3); // the last frame held a moment in the cast
  } finally {
    screen.stop();
  }
  mkdirSync(dirname(castFile), { recursive: true });
  writeFileSync(castFile, screen.cast());
  mkdirSync(media, { recursive: true });
  for (const [name, at] of Object.entries(moments)) {
    const out = join(media, `${name}.svg`);
    // Not optimized: svgo would collapse the runs of spaces that place Neovim's columns.
    const args = ["-y", SVG_TERM, "--in", castFile, "--out", out, "--at", String(at), "--no-cursor", "--window", "--no-optimize"];
    const r = spawnSync("npx", args, { stdio: "inherit" });
    if (r.status !== 0) throw new Error(`record: ${SVG_TERM} failed for ${name}`);
    // Spaces kept by renderers that read no CSS `white-space` (librsvg) too.
    writeFileSync(out, readFileSync(out, "utf8").replace("<svg ", '<svg xml:space="preserve" '));
    console.log(`record: ${out}`);
  }
  console.log(`record: the whole session is in ${castFile}`);
}

/** A small git project: the demo's fork edits TODO.md in a worktree made from it. */
function makeProject() {
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, "TODO.md"), "# Plan\n\n- read the config\n- parse the records\n");
  writeFileSync(join(project, "records.py"), 'def parse(line):\n    return line.split(",")\n');
  const git = (...args) => execFileSync("git", ["-c", "user.name=demo", "-c", "user.email=demo@example.com", ...args], { cwd: project });
  git("init", "-q");
  git("add", ".");
  git("commit", "-qm", "a project to record");
}

/** Neovim in a detached tmux session of its own socket, with the demo's data and no user config. */
function startNeovim(url) {
  const xdg = (name) => join(work, "xdg", name);
  const env = {
    XDG_CONFIG_HOME: xdg("config"),
    XDG_DATA_HOME: xdg("data"),
    XDG_STATE_HOME: xdg("state"),
    XDG_CACHE_HOME: xdg("cache"),
    ANTHROPIC_BASE_URL: url,
    // Not a key: the local mock accepts anything.
    ANTHROPIC_API_KEY: "offline-demo",
    COLORTERM: "truecolor",
    TERM: "tmux-256color",
  };
  const init = tryInit(root, join(xdg("data"), "tine"));
  const conf = join(work, "tmux.conf");
  writeFileSync(conf, 'set -g status off\nset -g default-terminal "tmux-256color"\nset -as terminal-features ",*:RGB"\n');
  const command = [
    "env",
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
    findNvim(root),
    "--clean",
    "--listen",
    nvimSocket,
    "--cmd",
    init,
    "--cmd",
    "set termguicolors shortmess+=I",
    "TODO.md",
    "+Tine",
  ];
  execFileSync("tmux", [
    "-L",
    socket,
    "-f",
    conf,
    "new-session",
    "-d",
    "-s",
    "rec",
    "-x",
    String(WIDTH),
    "-y",
    String(HEIGHT),
    "-c",
    project,
    // Given as words, tmux runs the command without a shell: nothing to quote.
    ...command,
  ]);
}

const tmux = (...args) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
const count = (text, needle) => text.split(needle).length - 1;

/** Types text as it is (not as key names). */
async function type(text) {
  tmux("send-keys", "-t", "rec", "-l", text);
}

async function keys(...names) {
  tmux("send-keys", "-t", "rec", ...names);
}

/** Runs Lua in the recorded Neovim through its server (as <C-w> moves would: nothing shows on screen). */
async function remote(lua) {
  const expr = `luaeval('${lua.replace(/\n\s*/g, " ").replace(/'/g, "''")}')`;
  const r = spawnSync(findNvim(root), ["--server", nvimSocket, "--remote-expr", expr], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`record: ${lua}: ${r.stderr}`);
  return r.stdout;
}

/** Waits until thread `num` has finished its turn (the screen shows the text before the turn ends). */
async function idle(num) {
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  const status = () =>
    remote(`(function() for _, t in ipairs(require("tine").threads()) do if t.num == ${num} then return t.status end end end)()`);
  while ((await status()).trim() !== "idle")
    if (Date.now() > deadline) throw new Error(`record: thread #${num} did not finish its turn`);
    else await sleep(FRAME_MS);
}

/** Puts the cursor in the window whose buffer's name matches the Lua pattern (a thread's display or input). */
async function focus(pattern) {
  const found = await remote(`(function()
      for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
        local name = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)), ":t")
        if name:match(${JSON.stringify(pattern)}) then vim.api.nvim_set_current_win(w) return true end
      end
      return false
    end)()`);
  if (found.trim() !== "v:true" && found.trim() !== "true") throw new Error(`record: no window for ${pattern}`);
}

/** The pane captured every FRAME_MS: each change a frame of the cast. */
class Screen {
  frames = [];
  start = Date.now();
  running = true;
  last = "";

  async run() {
    while (this.running) {
      const shot = tmux("capture-pane", "-p", "-e", "-t", "rec");
      if (shot !== this.last) {
        this.last = shot;
        this.frames.push({ at: Date.now() - this.start, shot });
      }
      await sleep(FRAME_MS);
    }
  }

  stop() {
    this.running = false;
  }

  /** Waits until the screen (as text) passes `check`; returns the time (ms into the cast) of that frame. */
  async until(what, check) {
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    // Only frames from now on: an earlier one may pass the check before the step's keys took effect.
    for (let seen = this.frames.length; Date.now() < deadline; await sleep(FRAME_MS / 2)) {
      for (; seen < this.frames.length; seen++) {
        const frame = this.frames[seen];
        if (check(plain(frame.shot))) return frame.at;
      }
    }
    throw new Error(`record: timed out waiting for ${what}; the screen:\n${plain(this.last)}`);
  }

  /** Waits until the screen no longer passes `check` (it passed when called); returns the time of the last frame that did. */
  async lastWhile(check) {
    let at = this.frames.at(-1).at;
    const deadline = Date.now() + STEP_TIMEOUT_MS;
    for (let seen = this.frames.length - 1; Date.now() < deadline; await sleep(FRAME_MS / 2)) {
      for (; seen < this.frames.length; seen++) {
        if (!check(plain(this.frames[seen].shot))) return at;
        at = this.frames[seen].at;
      }
    }
    throw new Error("record: the screen did not change");
  }

  /** The frames as an asciicast v2 file: each one the whole screen, drawn from the top left. */
  cast() {
    const header = { version: 2, width: WIDTH, height: HEIGHT, timestamp: Math.floor(this.start / 1000), env: { TERM: "xterm-256color" } };
    const events = this.frames.map((f) => [f.at / 1000, "o", `\x1b[H\x1b[2J${f.shot.replace(/\n$/, "").split("\n").join("\r\n")}`]);
    return `${[header, ...events].map((e) => JSON.stringify(e)).join("\n")}\n`;
  }
}

/** A captured screen without its escape sequences. */
function plain(shot) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape sequences are what is removed
  return shot.replace(/\x1b\[[0-9;:]*[A-Za-z]/g, "");
}

try {
  await record();
} finally {
  spawnSync("tmux", ["-L", socket, "kill-server"]);
  demo?.kill();
  rmSync(work, { recursive: true, force: true });
}
