-- Every option, its default and what it does, in one place: the only place a default is written.
-- `require("tine").setup(opts)` merges the user's opts over these and checks them; the host
-- receives the merged table whole (lua/tine/host.lua) and has no defaults of its own.
local M = {}

---@type TineConfig
M.defaults = {
  -- Anthropic model and limits.
  model = "claude-sonnet-5-5",
  -- Thinking counts toward max_tokens: leave room for it (Sonnet 5.5 allows up to 128K).
  max_tokens = 32000,
  -- Sent as the request's `thinking`. Adaptive thinking (Claude 4.6 and later) with "summarized"
  -- display, so you can read it (collapsed under a `▸ Thinking` line). Others: { type =
  -- "between_tools" } (Sonnet 5.5: no thinking before the first tool call), { type = "enabled",
  -- budget_tokens = 4096 } (models before 4.6), or false to send none (the model's default).
  thinking = { type = "adaptive", display = "summarized" },
  -- Unset by default (one of M.unset below): "low" | "medium" | "high" | "xhigh" | "max", sent
  -- as output_config.effort; nil: the model's default.
  -- effort = "high",
  -- Let the model use Anthropic's server-side web search.
  web_search = false,
  -- Client tools that wait for your approval in the display buffer before they run.
  tools_needing_approval = { "bash_command", "edit_file" },
  -- The system prompt every thread starts with.
  system_prompt = "You are a coding assistant working inside Neovim. Be concise. "
    .. "Use the tools to read and change files in the project when that helps.",
  -- Project instructions, sent in a thread's system prompt after system_prompt: these files, in
  -- this order (yours, then the project's: a later file is the more specific). Read when a thread
  -- starts: a change applies to new threads, and a thread keeps what it read (in its forks and
  -- after a restart too). Paths are relative to the project root, or absolute; `~` and
  -- $XDG_CONFIG_HOME (~/.config when unset) are expanded; a file that is not there is skipped,
  -- and one in the project that links outside it is not read (the banner says where it leads).
  -- A file longer than max_bytes is cut there, and the model and the thread's banner are told.
  -- `files` you set replaces this list whole. false: none.
  instructions = {
    files = { "$XDG_CONFIG_HOME/tine/AGENTS.md", "AGENTS.md", "CLAUDE.md" },
    max_bytes = 32768,
  },
  -- Unset by default (one of M.unset below): points the SDK elsewhere; ANTHROPIC_BASE_URL in the
  -- environment does the same. The API key is read only from the environment (ANTHROPIC_API_KEY),
  -- never from here.
  -- base_url = "http://localhost:8080",
  -- Seconds without any data from the API before a request is given up (partial text is kept).
  stream_idle_timeout = 60,
  -- An overloaded API's `retry-after` up to this many seconds is waited out by itself; a longer
  -- one is shown, and you send again when you want to.
  max_retry_wait = 60,
  -- Seconds a bash_command may run before it is stopped (the model is told).
  bash_timeout = 120,
  -- Environment variables kept from every tool process, besides ANTHROPIC_API_KEY (always removed);
  -- a project's MCP file never reads them either.
  tool_env_deny = {},
  -- MCP servers by name (:help tine-mcp): { command = { "prog", "arg" }, env = { K = "v" }, cwd = "dir" }
  -- for stdio, { url = "https://…", headers = { K = "v" } } for Streamable HTTP (SSE as fallback).
  -- "${VAR}" in a value is read from Neovim's environment when the server starts. The project's
  -- .tine/mcp.json and .mcp.json (Claude Code's shape) add theirs; for a name in several, this wins.
  mcp_servers = {},
  -- The project's .tine/mcp.json and .mcp.json start programs named by whoever wrote the project:
  -- read only when you set this to true (a project you cloned never runs a command by itself).
  mcp_project_files = false,
  -- MCP calls that run without waiting for your approval: "server" (all its tools) or "server/tool".
  mcp_auto_approve = {},
  -- Seconds an MCP server may take to start, or a call to answer; a call past it is cancelled.
  mcp_timeout = 120,
  -- How a remote MCP server's sign-in page is shown (:help tine-mcp-sign-in): a function(url,
  -- server). Unset: the URL is shown in a notification and opened with vim.ui.open (without a
  -- browser, open the URL elsewhere; its callback must reach 127.0.0.1 on this machine).
  -- mcp_open_url = function(url, server) end,
  -- Threads are written here as they happen (one JSONL transcript per thread, per project).
  data_dir = vim.fn.stdpath("data") .. "/tine",
  -- false: threads live only in memory and nothing is written to disk.
  persist = true,
  -- Code snapshots (:help tine-code): the project's files are recorded in a private git store under
  -- data_dir before a turn's tools run and when it ends, so a turn's changes are listed and
  -- :Tine restore can bring files back. Needs git and a git repository; false: none are taken.
  snapshots = true,
  -- Days a snapshot is kept; older ones (and those of deleted threads) are dropped once a day.
  snapshot_keep_days = 30,
  -- Forks that work in a git worktree of their own (:help tine-worktree), made from the snapshot at
  -- the fork point: "always" (every fork you take), "background" (@bg forks, which work while you
  -- edit, and forks of a fork that has a worktree) or "never". `--worktree` asks for one anyway.
  -- Needs git, a git repository and snapshots.
  fork_worktree = "background",
  -- Where forks' worktrees are made (a folder per project inside); false: <data_dir>/worktrees.
  worktree_dir = false,
  -- Forks that are unattended without `--unattended` (:help tine-unattended): "background" (@bg
  -- forks and background forks from fork()), "always" (every fork) or "never". An unattended fork
  -- works in a worktree of its own, its tools in a sandbox (no network, only its worktree
  -- writable), and waits for you only for a call outside it. Where the sandbox cannot start,
  -- these forks are made as ordinary forks and you are told once.
  fork_unattended = "never",
  -- Paths an unattended fork's sandbox hides besides ~/.ssh, ~/.gnupg, ~/.aws, ~/.config/gcloud,
  -- ~/.netrc and data_dir: each absolute or starting with ~/ (e.g. { "~/.kube", "/srv/secrets" }).
  sandbox_deny_read = {},
  -- The most forks one fan-out makes (:ForkThread --n N, @fork×N, fanout(); :help tine-fanout).
  fanout_max = 8,
  -- A shell command run in each fan-out fork's worktree when its turn ends (in its sandbox when it
  -- is unattended), its exit status and output's tail kept with the fork; false: none. E.g. "npm test".
  check_command = false,
  -- Minutes a fork may stay idle before it is asked to wrap up; after as long again without
  -- you, it reports back to its parent and ends. Fractions allowed.
  fork_idle_timeout = 10,
  -- Forks the agent may have open at once that it opened itself (its enter_fork tool), per
  -- thread; past it, enter_fork is refused and the agent told why. A fork the agent opened opens
  -- none until you send a message in it (then it is yours, and no longer counts). 0: none.
  agent_fork_limit = 3,
  -- Mentions (@file:, @buf, @diff…): the most one item may hold, in bytes (a file mentioned that
  -- is larger is an error; a buffer or a diff is cut to its start and end), and the most files one
  -- @file: glob may name.
  context_max_bytes = 256 * 1024,
  context_max_files = 50,
  -- Seconds one git a send runs for its mentions (@diff, @staged, the file list of an @file: glob)
  -- may take: Neovim waits for the send, so a git that takes longer is stopped and the send
  -- refused with a message (your text stays in the input).
  context_git_timeout = 10,
  -- Where a fork opens: "vsplit" | "split" | "tab" | "replace".
  fork_open = "vsplit",
  -- After a thread's first reply the model names it (3 to 6 words; one small request of its own
  -- that leaves the thread's cache alone), unless you named it: true uses the thread's model, a
  -- model name that model (e.g. "claude-haiku-4-5"), false keeps the title from the first message.
  auto_title = true,
  -- `:Tine model` picks the current thread's own model and thinking effort from these (`model`
  -- above is offered too); the thread keeps it (its forks inherit it) until picked again.
  models = { "claude-sonnet-5-5", "claude-haiku-4-5" },
  -- Thinking budgets (tokens) of the efforts `:Tine model` offers ("none" turns thinking off);
  -- each is kept below max_tokens.
  thinking_budgets = { low = 4096, medium = 12000, high = 24000 },
  -- Compaction (:help tine-compact): when a reply leaves a thread's context (the last request's
  -- input, cache and output tokens) past this fraction of the model's context window, tine offers
  -- to compact it into a new thread (the old one stays whole); a send that would overflow the
  -- window compacts first without asking. false: neither.
  auto_compact = 0.8,
  -- The chat sidebar: its side ("left" | "right"), its width (columns) and the input's height
  -- (lines). A fork opened beside its source ("vsplit") widens the sidebar into the editor while
  -- both stand, leaving the editor min_editor_width columns (each thread keeps 40; narrower, the
  -- fork is stacked in the source's column). On a narrow screen the sidebar gives the editor
  -- min_editor_width too, down to 40 columns of its own.
  sidebar = { side = "right", width = 80, input_height = 8, min_editor_width = 40 },
  -- The thread list (:Tine threads) is as tall as its lines, up to this many.
  list_max_height = 15,
  -- First delay when a transient error (overload, rate limit, 5xx, 408, a refused or reset
  -- connection) is retried and the server names no wait (doubles each time).
  retry_delay_ms = 1000,
  -- A thread opens at its end; the rest of its display is written in steps of about this many
  -- bytes (a step holds Neovim a few ms), each once Neovim has applied the one before.
  display_fill_step = 128 * 1024,
  -- How Claude Code is started (:Tine export resumes the exported session with it).
  claude_command = { "claude" },
  -- Agents that speak the Agent Client Protocol (:help tine-acp), by name:
  -- { command = { "program", "arg" }, env = { K = "v" }, mode = "default" }. The command runs without
  -- a shell; `env` is set over Neovim's environment, "${VAR}" in it read from that environment when
  -- the agent starts (never stored or logged); `mode`: the session mode set on each session (:Tine agent).
  acp_agents = {},
  -- The Node binary that runs the host.
  node = "node",
  -- The most items one completion of a mention in the input offers (`@file:` paths best first).
  complete_max_items = 50,
  -- Costs in the winbar and the thread list: rates in dollars per million tokens by model, over
  -- the built-in table (node/usage/prices.ts, with its date); a model in neither shows tokens only.
  -- e.g. { ["claude-x-1"] = { input = 3, output = 15, cache_write = 3.75, cache_read = 0.3, context_window = 200000 } }
  prices = {},
  -- Minutes the prompt cache lives after a request (5 for the API's default cache): past it, the
  -- winbar says the next send will not read the cache.
  cache_lifetime = 5,
  -- Signs in file buffers on the lines of the agents' hunks not reviewed yet (:help tine-review-signs).
  review_signs = true,
  -- Keys in tine's buffers; false leaves one unmapped. The empty thread's hint names send, send_any
  -- and help; a fork's banner names fork_report, fork_promote and fork_discard; a tool call waiting
  -- for approval names approve, approve_always, deny and deny_reason.
  keymaps = {
    send = "<CR>", -- input buffer, normal mode
    send_any = "<C-s>", -- input buffer, Normal and Insert mode
    help = "g?", -- display, input and list buffers: show the keys
    abort = "<C-c>", -- input and display buffers
    -- display (input: while it is empty): after an error, send the failed turn again (or :Tine retry)
    retry = "R",
    toggle_detail = "<Tab>", -- display: expand/collapse thinking, tool results, search results, a reply's changed files
    open_change = "<CR>", -- display, on a file of a reply's change list: it beside its state before the turn
    -- display: approve the tool call under the cursor (or the only one waiting)
    approve = "a",
    -- display: approve the call under the cursor and every later call of that tool in this
    -- thread (and in forks taken after)
    approve_always = "A",
    deny = "d", -- display
    -- input (Normal mode), only while a tool call waits (else Vim's own key): answer it as the
    -- display's a, A, d and D do. Keys that never edit text, so that no draft key (`a`, `dd`)
    -- can run a command; the notice under the draft names them.
    input_approve = "<C-y>",
    input_approve_always = "g<C-y>",
    input_deny = "<C-n>",
    input_deny_reason = "g<C-n>",
    -- display, on a message queued while the agent works: take it back into the input to edit
    -- (`dd` there cancels it).
    edit_queued = "<CR>",
    -- display, on the line of a worktree fork's merge that left conflicts (⚠ merge of …): the agent
    -- is asked to resolve them, the conflicted files going with the message
    resolve_merge = "<CR>",
    fork_at_message = "F", -- display: fork here (visual: quote the selection in the fork)
    go_to_parent = "gp", -- display of a fork: jump to where it branched
    go_to_fork = "gb", -- display, on a message with a ⑂ mark: jump to that fork (the pair of gp)
    -- A fork's display and the thread list: how a fork ends (:help tine-fork-exits).
    fork_report = "gR", -- a summary of the fork goes to its parent's next message
    fork_promote = "gP", -- the parent takes the fork's history
    fork_discard = "gD", -- the fork closes and leaves the tree (`:Tine threads!` restores it)
    list_background = "b", -- thread list: a fork that runs without a window and reports back
    list_open = "<CR>", -- thread list: open the thread under the cursor (or restore an ended fork)
    list_fork = "f", -- thread list: fork the thread under the cursor (asks for the prompt)
    list_worktree = "w", -- thread list: fork it into a git worktree of its own (asks for the prompt)
    list_rename = "r", -- thread list: rename the thread under the cursor
    list_delete = "D", -- asks for confirmation
    -- Any buffer (set by setup()): Visual mode, the selection with its file and lines goes into
    -- the active thread's input as a quoted block (`:'<,'>Tine add`); Normal mode, the file as
    -- `@file:<path>` (`:Tine add`).
    add = "<leader>ta",
    list_filter = "/", -- thread list: only threads whose title or label holds a text (asks it; empty: all)
    list_diff = "d", -- thread list: the thread beside its parent, from where they branched (:Tine diff)
    compare_open = "<CR>", -- :Tine compare: open the fork under the cursor
    compare_expand = "<Tab>", -- :Tine compare: show or hide the fork's files (l too)
    compare_mark = "m", -- :Tine compare: mark a fork: d diffs against it
    compare_diff = "d", -- :Tine compare: the fork beside the marked one, else the next (:Tine diff)
    compare_promote = "P", -- :Tine compare: promote the fork into its source (the others stay)
    compare_discard = "D", -- :Tine compare: discard the fork
    compare_discard_others = "X", -- :Tine compare: discard every other fork
    compare_graft = "gp", -- :Tine compare: on a file (or hunk) line: put its change into the source (graft)
    label = "L", -- thread list: label the thread; display: label the message under the cursor
    edit_message = "e", -- display, on a message you wrote: a fork before it, its text in the input to edit
    -- display, on a message: a new thread under this one, a summary of what came before the
    -- message followed by the rest kept as it is (the thread itself is left whole)
    compact = "C",
    -- display: deny the tool call, asking why; the reason goes to the model
    deny_reason = "D",
    -- display, on a hunk of a turn's expanded file diff (:help tine-review); off a hunk these keys
    -- do what Vim's do
    review_keep = "gk", -- mark the hunk reviewed (✓ kept)
    review_undo = "gu", -- take the hunk back in the working file, three-way (↶ undone)
    review_comment = "gc", -- a comment on the hunk, told to the model with your next message
    next_hunk = "]h", -- the next hunk of an expanded file diff
    prev_hunk = "[h", -- the previous one
    -- :Tine review (:help tine-review-diff), besides the keys above
    review_next_file = "]f", -- the turn's next changed file
    review_prev_file = "[f", -- the previous one
    review_quit = "q", -- end the review: its tab closes, your windows are as they were
  },
}

--- What every option must be (generated from node/core/options.ts, the rules the host checks too).
local checks = require("tine.option_checks")
local rules = require("tine.option_rules")

--- Options whose default is nil (an option whose rule allows nil, with no default), so
--- M.defaults cannot hold them: the host is sent them as vim.NIL (it wants every option, and a
--- nil field would not be sent at all). Each is documented in M.defaults, commented out.
M.unset = {}
for _, name in ipairs(rules.order) do
  if rules.fields[name].nullable and M.defaults[name] == nil then
    M.unset[name] = true
  end
end

---@type TineConfig
M.options = vim.deepcopy(M.defaults)

--- Options only Neovim reads (a function cannot be sent to the host): what each must be.
M.lua_only = { mcp_open_url = "function" }

--- An option setup() takes: one the rules name, or one only Neovim reads.
---@param name any
---@return boolean
local function known(name)
  return type(name) == "string" and (rules.fields[name] ~= nil or M.lua_only[name] ~= nil)
end

--- The problem with option `name` of `options` (nil when there is none).
local function problem(options, name)
  return checks.check(rules.fields[name], options[name], name, options)
end

--- The problem with Neovim's own option `name` (unset is none), as a line.
local function lua_only_problem(options, name)
  local v = options[name]
  if v ~= nil and type(v) ~= M.lua_only[name] then
    return ("tine: setup: %s must be a %s (got %s)"):format(name, M.lua_only[name], vim.inspect(v))
  end
end

--- The problems with `options` (merged from the user's `given`), one line each, naming the option.
---@param options table
---@param given table
---@return string[]
function M.problems(options, given)
  local out = {}
  for name in pairs(given) do
    if not known(name) then
      table.insert(out, ("tine: setup: unknown option %q"):format(name))
    end
  end
  for _, name in ipairs(rules.order) do
    local p = problem(options, name)
    if p then
      table.insert(out, "tine: setup: " .. checks.say(p))
    end
  end
  for name in pairs(M.lua_only) do
    local p = lua_only_problem(options, name)
    if p then
      table.insert(out, p)
    end
  end
  table.sort(out)
  return out
end

--- Merges `opts` over the defaults. Problems are reported at once, naming the option; a bad value
--- is replaced by its default and an unknown option dropped, so the rest still works.
---@param opts? TineConfig
---@return TineConfig
function M.setup(opts)
  if opts ~= nil and type(opts) ~= "table" then
    vim.notify(("tine: setup: opts must be a table (got %s)"):format(vim.inspect(opts)), vim.log.levels.ERROR)
    return M.options
  end
  opts = opts or {}
  local options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts)
  -- `thinking` is one API value, not a set of options: the user's replaces the default whole.
  if opts.thinking ~= nil then
    options.thinking = opts.thinking
  end
  local problems = M.problems(options, opts)
  if #problems > 0 then
    vim.notify(table.concat(problems, "\n"), vim.log.levels.ERROR)
    for name in pairs(opts) do
      if not known(name) then
        options[name] = nil -- the host takes known options only
      end
    end
    for _, name in ipairs(rules.order) do
      if problem(options, name) then
        options[name] = vim.deepcopy(M.defaults[name])
      end
    end
    for name in pairs(M.lua_only) do
      if lua_only_problem(options, name) then
        options[name] = nil
      end
    end
  end
  M.options = options
  return M.options
end

return M
