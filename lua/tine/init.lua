-- tine.nvim: chat with Claude agents in Neovim and fork the conversation at any moment.
-- The public Lua API (`:help tine-api`). Every call is a synchronous request to the host, which
-- checks the arguments (node/rpc/methods.ts): a wrong one is an error naming the function and the
-- argument, and nothing changes. The types are in lua/tine/types.lua. :Tine is in commands.lua,
-- :ForkThread in fork.lua; what the keys of a thread's buffers do is in keys.lua, the list's in
-- list.lua.
-- Over 300 lines: it is the one public API, each function a few lines that ask the host; a call
-- that does more in Neovim has a module of its own, loaded on use (ending a fork: fork_end.lua;
-- :Tine diff's tab: branch_diff.lua; Claude Code's command and terminal: claude.lua; code
-- snapshots: code.lua).
local config = require("tine.config")
local host = require("tine.host")
local keys = require("tine.keys")
local ui = require("tine.ui")
local util = require("tine.util")

local guarded = util.guarded

local M = {}

---@param opts? TineConfig
function M.setup(opts)
  config.setup(opts)
  -- @buf and @diag mean the window the user came from: remembered from now on.
  require("tine.context").track()
  -- The one key tine maps outside its own buffers (:Tine add), loaded on use of setup().
  require("tine.add").map_key(config.options.keymaps.add)
end

-- ---- :help tine-api ----

--- This project's threads, live and stored, oldest first.
---@return TineThreadInfo[]
function M.threads()
  return require("tine.threads_mirror").threads()
end

--- The active thread's id.
---@return string?
function M.current()
  return host.request("current")
end

--- The thread's messages exactly as its next request would carry them.
---@param id string
---@return TineMessage[]
function M.messages(id)
  return host.request("messages", id)
end

--- What the thread's own requests used and cost (a fork's start after its fork point), with its
--- subtree's; nil for a thread whose requests tine does not make (a Claude Code one).
---@param id string
---@return TineUsage?
function M.usage(id)
  local u = host.request("usage", id)
  return u ~= vim.NIL and u or nil
end

--- The same entry as typing in the input buffer and pressing <CR> (`@fork ...` included; a file
--- outside the project named alone is sent only once you say yes).
---@param id string
---@param text string
---@return TineSendResult
function M.send(id, text)
  return keys.request_send(id, text)
end

--- Aborts the thread's stream or pending tools.
---@param id string
---@return true
function M.abort(id)
  return host.request("abort", id)
end

--- Forks thread `id` (live or stored); returns the new thread's id, or nil when the call cancelled
--- a fork waiting on the same thread instead.
---@param id string
---@param prompt? string sent as the fork's first turn ("" or nil: none)
---@param opts? TineForkOpts
---@return string?
function M.fork(id, prompt, opts)
  return host.request("fork", id, prompt or "", opts or vim.empty_dict())
end

--- Fork ×N: `prompt` to `opts.n` forks of live thread `id` at once, each a background fork in a
--- git worktree of its own (unattended where the sandbox can start); returns their ids.
---@param id string
---@param prompt string
---@param opts? TineFanoutOpts
---@return string[]
function M.fanout(id, prompt, opts)
  return host.request("fanout", id, prompt or "", opts or vim.empty_dict())
end

--- A fan-out's forks side by side (:help tine-fanout): `ids` a list of fan-out forks, or one
--- thread's id standing for its fan-out (a fork of it, or its source: its latest fan-out); nil: the
--- thread here. Each fork: `{ id, fanout, num, title, state, cwd, files, changes, added, removed, check?,
--- cost_usd, cache_read }`; `state` is "running", "waiting" (for an approval) or "done" (its turn
--- and its check ended); `check` (`{ ok, code, output }`) is absent until the check has run.
---@param ids? string|string[]
---@return TineComparedFork[]
function M.compare(ids)
  return host.request("compare", ids or vim.b.tine_thread or M.current())
end

--- Shows thread `id` in the sidebar, loading it from disk when it is stored.
---@param id string
---@return string id
function M.open(id)
  local t = host.request("open", id)
  if t.read_only_by ~= nil and t.read_only_by ~= vim.NIL then
    vim.notify(
      ("tine: this thread is open for writing in another Neovim (pid %d): it is read-only here; fork it to continue"):format(t.read_only_by),
      vim.log.levels.WARN
    )
  end
  ui.show(t.display, t.input)
  return t.id
end

---@param id string
---@param title string
---@return true
function M.rename(id, title)
  return host.request("rename", id, title)
end

--- Compacts thread `id` into a new thread under it, whose first message is the model's summary of
--- it (following `instructions`) up to message `at_message` (all of it without); the rest after it
--- is kept verbatim. The thread itself stays whole. Returns the new thread's id once it is open.
---@param id string
---@param instructions? string
---@param at_message? integer
---@return string
function M.compact(id, instructions, at_message)
  return host.request("compact", id, instructions or "", at_message)
end

--- Thread `id`'s own model and thinking effort ("setup": setup's thinking; "none", "low",
--- "medium", "high") from its next request on (`:Tine model` asks for them); its forks inherit them.
---@param id string
---@param model string
---@param effort "setup"|"none"|"low"|"medium"|"high"
---@return true
function M.model(id, model, effort)
  return host.request("choose_model", id, model, effort)
end

--- Deletes thread `id` (no confirmation: the list's `D` asks). Its forks keep their history.
---@param id string
---@return true
function M.delete(id)
  return host.request("delete", id)
end

--- Ends fork `id`: it is closed and leaves the tree (`:Tine threads!` restores it).
---@param id string
---@return true
function M.discard(id)
  return host.request("fork_discard", id)
end

--- The parent of fork `id` takes over its history; the parent's own tail becomes a new fork. The
--- fork's windows go to the parent as any ending fork's do (ui.fork_ended); the focus stays where
--- it was (in the list, the list).
---@param id string
---@return string parent_id the parent
function M.promote(id)
  return host.request("fork_promote", id)
end

--- Brings the change worktree fork `from_id` made to `path` (relative to the project, as its change
--- lists name it) into its parent's files, three-way: the whole file, or only hunk `hunk` (from 1,
--- in file order) of the fork's diff of it. Conflicts are marked in the file and listed in the
--- quickfix list. The fork goes on, its worktree kept (|tine-graft|).
---@param from_id string
---@param path string
---@param hunk? integer
---@return TineGraftResult
function M.graft(from_id, path, hunk)
  return host.request("graft", from_id, path, hunk)
end

-- ---- review (:help tine-review) ----

--- The hunks of thread `id`'s turn that ended at or after message `at_message` (nil: its last turn
--- that changed files): `{ path, index, old_start, old_lines, new_start, new_lines, state }`, file
--- by file, `index` from 1 within a file, `state` "pending", "kept" or "undone".
---@param id string
---@param at_message? integer
---@return TineHunk[]
function M.hunks(id, at_message)
  return host.request("review_hunks", id, at_message)
end

--- Marks hunk `index` of `path` reviewed (the turn: the one at `at_message`, nil: the last turn
--- that changed `path`).
---@param id string
---@param path string
---@param index integer
---@param at_message? integer
---@return true
function M.keep_hunk(id, path, index, at_message)
  return host.request("keep_hunk", id, path, index, at_message)
end

--- Takes hunk `index` of `path` back in the working file, that hunk only, three-way against what
--- changed since (later edits survive; where they touch the same lines, conflict markers and the
--- quickfix list). `:Tine restore undo` puts the file back.
---@param id string
---@param path string
---@param index integer
---@param at_message? integer
---@return { path: string, index: integer, conflicts: integer }
function M.reject_hunk(id, path, index, at_message)
  return host.request("reject_hunk", id, path, index, at_message)
end

--- A comment on hunk `index` of `path`, told to the model with the thread's next message.
---@param id string
---@param path string
---@param index integer
---@param text string
---@param at_message? integer
---@return true
function M.comment_hunk(id, path, index, text, at_message)
  return host.request("comment_hunk", id, path, index, text, at_message)
end

--- :Tine review: thread `id`'s turn at `at_message` in diff mode, file by file (lua/tine/review.lua).
---@param id? string nil: the thread here
---@param at_message? integer
function M.review(id, at_message)
  return require("tine.review").open(id, at_message)
end

--- A summary of fork `id` goes to its parent's next message, then the fork ends. Without `text`
--- the fork is asked for the summary first.
---@param id string
---@param text? string
---@return true
function M.report(id, text)
  return host.request("fork_report", id, text or vim.NIL)
end

-- ---- code snapshots (:help tine-code) ----

--- Restores the project's files to message `at_message`'s snapshot in thread `id` (only the code;
--- the conversation is unchanged). Unless `opts.confirm` is false, shows what will change and asks
--- first. Files changed since the thread's last turn are left alone unless `opts.overwrite`.
---@param id string
---@param at_message integer
---@param opts? { confirm?: boolean, overwrite?: boolean }
---@return TineRestoreResult?
function M.restore(id, at_message, opts)
  return require("tine.code").restore(id, at_message, opts)
end

--- Puts back the files the last restore wrote, exactly as they were before it.
---@return TineRestoreResult
function M.restore_undo()
  return require("tine.code").restore_undo()
end

-- ---- Claude Code ----

--- Turns a Claude Code session (its id or transcript path) into a tine thread; returns its id.
---@param session string
---@return string id
function M.import_claude(session)
  local t = host.request("import_claude", session)
  ui.show(t.display, t.input)
  return t.id
end

--- :Tine claude [args]: a thread run by Claude Code in a terminal (with --session-id injected;
--- claude.lua checks the command first).
---@param args? string the command line's arguments, split as a shell would
---@return string id
function M.claude(args)
  return require("tine.claude").start(args)
end

--- :Tine agent <name>: a thread run by the ACP agent `name` of `acp_agents` (:help tine-acp).
---@param name string
---@return string id
function M.agent(name)
  if name == nil or name == "" then
    local names = vim.tbl_keys(config.options.acp_agents or {})
    table.sort(names)
    error(
      #names > 0 and ("tine: :Tine agent <name>: one of %s"):format(table.concat(names, ", "))
        or "tine: :Tine agent <name>: acp_agents in setup() names no agent (:help tine-acp)",
      0
    )
  end
  local t = host.request("new_agent", name)
  ui.show(t.display, t.input)
  return t.id
end

--- Writes thread `id` as a Claude Code session (the thread is unchanged) and continues it in
--- Claude Code, as a thread of its own under this one. Returns the new session id.
---@param id? string default: the thread in the current buffer, else the active one
---@return string session_id
function M.export_claude(id)
  return require("tine.claude").export(id or vim.b.tine_thread or M.current())
end

--- :Tine diff [a [b]]: two branches side by side from their common ancestor, in a new tab, in
--- diff mode (branch_diff.lua). Without threads: the current fork against its parent. A failure
--- is reported.
---@param a? string|integer a thread id or display number (default: the thread here)
---@param b? string|integer default: `a`'s parent
function M.diff(a, b)
  return require("tine.branch_diff").open(a, b)
end

--- Whether forks `ids` may be discarded: forks with messages of their own ask first (fork_end.lua).
---@param ids string|string[]
---@return boolean
function M.discard_confirmed(ids)
  return require("tine.fork_end").discard_confirmed(ids)
end

--- :Tine fork discard|promote|report [text], and the fork keys: ends the fork here (or `id`);
--- a discard of a fork with messages of its own asks first (fork_end.lua). A failure is reported.
---@param action "discard"|"promote"|"report"
---@param id? string default: the thread in the current buffer, else the active one
---@param text? string the report (without it, the fork is asked for one)
function M.fork_end(action, id, text)
  return require("tine.fork_end").fork_end(action, id, text)
end

--- :Tine retry and `R` after an error: the failed turn is sent again; in a thread tine's stop cut
--- off (go_on.lua), it goes on. A failure is reported.
---@param id? string default: the thread in the current buffer, else the active one
function M.retry(id)
  id = id or vim.b.tine_thread or M.current()
  if id and require("tine.go_on").offered(id) then
    require("tine.go_on").accept(id)
  elseif id then
    guarded(host.request, "retry", id)
  end
end

-- ---- the keys and commands that scripts call here too ----

M.line_action = keys.line_action
M.go_to_parent = keys.go_to_parent
M.go_to_fork = keys.go_to_fork

--- :Tine rename <title> (commands.lua), loaded on use: commands.lua requires this module.
---@param title string
function M.rename_current(title)
  return require("tine.commands").rename_current(title)
end

return M
