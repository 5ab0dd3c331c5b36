-- Forking from the editor: :ForkThread (plugin/tine.lua defines it), `F` on a message (which is
-- :ForkThread!), visual `F` on a selection, and the prompt asked before a fork (the list's `f`
-- asks it too). They find the thread and the message under the cursor and call fork() (init.lua).
local host = require("tine.host")
local tine = require("tine")
local util = require("tine.util")

local err, guarded = util.err, util.guarded

local M = {}

---@return string id
local function current_thread()
  local id = vim.b.tine_thread
  if not id and vim.bo.buftype == "terminal" then
    error("tine: this terminal was not started by tine (:Tine claude), so its Claude Code session id is unknown: nothing was forked", 0)
  end
  if not id then
    error("tine: :ForkThread works in a thread's display or input buffer (this buffer is not one)", 0)
  end
  return id
end

---@param id string
---@param opts TineForkOpts
---@param at_yours? boolean it forks at a message of the user's, which the fork answers again first
function M.ask_and_fork(id, opts, at_yours)
  local prompt = at_yours and "Fork prompt (your message is answered again first; empty: only that): " or "Fork prompt (empty: fork only): "
  vim.ui.input({ prompt = prompt }, function(answer)
    if answer == nil then
      return
    end -- cancelled
    guarded(tine.fork, id, answer, opts)
  end)
end

--- `N f` in the list: asks the prompt, then fans out N forks of thread `id`.
---@param id string
---@param n integer
function M.ask_and_fanout(id, n)
  vim.ui.input({ prompt = ("Fan-out prompt (%d forks): "):format(n) }, function(answer)
    if answer == nil then
      return
    end -- cancelled
    guarded(tine.fanout, id, answer, { n = n })
  end)
end

--- The fork's code, asked before a fork at a message (`F`, visual `F`, :ForkThread!): where that
--- message's files differ from the thread's last turn, whether the fork keeps the code as it is now
--- or restores the files to the message (and then, what would change); then `finish(opts)` asks
--- what else it needs and forks. A fork that shares its source's folder restores them there, over
--- the files the source works on: the question says so, and offers a worktree fork instead, made
--- from the message's files (the source's stay as they are). Nothing is written until the fork is
--- made: the host restores the files as it makes it (`restore_code`), so <Esc> at any question
--- leaves everything as it was.
---@param id string
---@param at_message integer
---@param opts table the fork's options so far
---@param finish fun(opts: table)
local function code_then(id, at_message, opts, finish)
  local ok, differs = guarded(host.request, "code_differs", id, at_message)
  if not ok then
    return
  end
  if not differs then
    return finish(opts)
  end
  local keep = "Keep the code as it is now"
  local choices, in_worktree
  if opts.worktree then
    in_worktree = "Restore the files to this message, in the fork's worktree"
    choices = { keep, in_worktree }
  else
    local source = vim.iter(tine.threads()):find(function(t)
      return t.id == id
    end) or {}
    local title = source.title or "the thread"
    local folder = source.cwd ~= nil and source.cwd ~= vim.NIL and source.cwd or vim.fn.getcwd()
    in_worktree = ('Restore them in a worktree fork: "%s" keeps its files'):format(title)
    choices = { keep, ('Restore the files to this message: rewrites the files "%s" works on (%s)'):format(title, folder), in_worktree }
  end
  vim.ui.select(choices, { prompt = "The fork's code" }, function(choice)
    if choice == nil then
      return
    end
    if choice == keep then
      return finish(opts)
    end
    if choice == in_worktree then
      -- Made from the message's snapshot: nothing of the source's is written, nothing to ask.
      return finish(vim.tbl_extend("force", opts, { restore_code = true, worktree = true }))
    end
    local asked, answer = guarded(require("tine.code").ask_restore, id, at_message)
    if not asked or answer == nil then
      return -- failed (and said so), or cancelled: no fork either
    end
    -- Here, as the question said, whatever fork_worktree would choose.
    opts = vim.tbl_extend("force", opts, { worktree = false })
    if answer ~= "nothing" then
      opts = vim.tbl_extend("force", opts, { restore_code = true, restore_overwrite = answer.overwrite })
    end
    finish(opts)
  end)
end

--- :ForkThread[!] [--wait|--bg] [--worktree|--unattended] [prompt]. With a bang (or `F`), forks at
--- the message under the cursor; with --wait, once the thread's reply has finished and its tools are
--- answered; with --worktree, in a git worktree of its own; with --unattended, in one whose tools run
--- in the sandbox, without approvals inside it. `:ForkThread --n N <prompt>`: N forks at once (fanout()).
---@param cmd { bang: boolean, args: string } as nvim_create_user_command gives it
function M.fork_command(cmd)
  local ok, id = guarded(current_thread)
  if not ok then
    return
  end
  -- A second :ForkThread on a thread with a waiting fork cancels that one.
  local cancelled_ok, cancelled = guarded(host.request, "cancel_waiting_fork", id)
  if not cancelled_ok or cancelled then
    return
  end
  local opts = vim.empty_dict()
  local args = cmd.args or ""
  -- The flags, in any order, before the prompt.
  local flags = { ["--wait"] = "wait", ["--bg"] = "background", ["--worktree"] = "worktree", ["--unattended"] = "unattended" }
  local n
  while true do
    -- `--n 3` or `--n=3`; any other word starting with -- before the prompt must be a flag.
    local count, rest = args:match("^%-%-n%f[%s=%z][%s=]*(%S*)%s*(.-)$")
    local flag = args:match("^(%-%-%S+)")
    if count then
      -- Its range (1 to fanout_max) is the host's to say, in the one message fanout() gives.
      n = tonumber(count)
      if not n then
        return err(("tine: :ForkThread --n takes how many forks, a number (got %q)"):format(count))
      end
      args = rest
    elseif flag and flags[flag] then
      opts = vim.tbl_extend("force", opts, { [flags[flag]] = true })
      args = vim.trim(args:sub(#flag + 1))
    elseif flag and flag ~= "--" then
      return err(("tine: :ForkThread has no flag %s (it takes --wait, --bg, --worktree, --unattended, --n N; -- ends them)"):format(flag))
    else
      -- `--` ends the flags: what follows is the prompt, even when it starts with --.
      args = flag == "--" and vim.trim(args:sub(3)) or args
      break
    end
  end
  if n then
    if cmd.bang or opts.wait then
      return err("tine: :ForkThread --n fans out from the thread as it is now: without ! or --wait")
    end
    -- Without a prompt it is asked, as a plain :ForkThread asks it (and the list's count and `f`).
    if args == "" then
      return M.ask_and_fanout(id, n)
    end
    return guarded(tine.fanout, id, args, { n = n })
  end
  if opts.background and args == "" then
    return err("tine: :ForkThread --bg needs a prompt")
  end
  local at_yours = false
  local go = function(o)
    if args ~= "" then
      return guarded(tine.fork, id, args, o)
    end
    M.ask_and_fork(id, o, at_yours)
  end
  if not cmd.bang then
    return go(opts)
  end
  local located, at = guarded(host.request, "locate", id, vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not located then
    return
  end
  if at == nil or at == vim.NIL then
    return err("tine: the cursor is not on a message")
  end
  at_yours = at.role == "user"
  code_then(id, at.message, vim.tbl_extend("force", opts, { at_message = at.message }), go)
end

--- Visual `F`: fork at the selection's last message, the selection quoted in the fork's input;
--- the fork's code is asked as `F` asks it.
function M.fork_selection()
  local ok, id = guarded(current_thread)
  if not ok then
    return
  end
  local from, to = vim.fn.line("v"), vim.fn.line(".")
  if from > to then
    from, to = to, from
  end
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<Esc>", true, false, true), "nx", false)
  local lines = vim.api.nvim_buf_get_lines(0, from - 1, to, false)
  local located, at = guarded(host.request, "locate", id, to - 1)
  if not located then
    return
  end
  if at == nil or at == vim.NIL then
    return err("tine: the selection is not on a message")
  end
  local quoted = vim.tbl_map(function(l)
    return "> " .. l
  end, lines)
  table.insert(quoted, "")
  code_then(id, at.message, { at_message = at.message, prefill = table.concat(quoted, "\n") }, function(o)
    guarded(tine.fork, id, "", o)
  end)
end

return M
