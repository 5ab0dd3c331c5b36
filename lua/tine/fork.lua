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
    error(
      "tine: this terminal was not started by tine (:Tine claude), so its Claude Code session id is unknown: nothing was forked",
      0
    )
  end
  if not id then
    error("tine: :ForkThread works in a thread's display or input buffer (this buffer is not one)", 0)
  end
  return id
end

---@param id string
---@param opts TineForkOpts
function M.ask_and_fork(id, opts)
  vim.ui.input({ prompt = "Fork prompt (empty: fork only): " }, function(answer)
    if answer == nil then
      return
    end -- cancelled
    guarded(tine.fork, id, answer, opts)
  end)
end

--- :ForkThread[!] [--wait|--bg] [--worktree] [prompt]. With a bang (or `F`), forks at the message
--- under the cursor; with --wait, once the thread's reply has finished and its tools are answered;
--- with --worktree, in a git worktree of its own.
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
  local flags = { ["--wait"] = "wait", ["--bg"] = "background", ["--worktree"] = "worktree" }
  while true do
    local flag = args:match("^(%-%-%a+)%f[%s%z]")
    if not flag or not flags[flag] then
      break
    end
    opts = vim.tbl_extend("force", opts, { [flags[flag]] = true })
    args = vim.trim(args:sub(#flag + 1))
  end
  if opts.background and args == "" then
    return err("tine: :ForkThread --bg needs a prompt")
  end
  cmd = { bang = cmd.bang, args = args }
  local go = function()
    if cmd.args and cmd.args ~= "" then
      return guarded(tine.fork, id, cmd.args, opts)
    end
    M.ask_and_fork(id, opts)
  end
  if not cmd.bang then
    return go()
  end
  local at = host.request("locate", id, vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not at then
    return err("tine: the cursor is not on a message")
  end
  opts = vim.tbl_extend("force", opts, { at_message = at.message })
  -- Asked only where the files of that message differ from the thread's last turn.
  if not host.request("code_differs", id, at.message) then
    return go()
  end
  local choices = { "Keep the code as it is now", "Restore the files to this message" }
  vim.ui.select(choices, { prompt = "The fork's code" }, function(choice)
    if choice == choices[2] then
      local ok, restored = guarded(require("tine.code").restore, id, at.message)
      if not ok or restored == nil then
        return -- failed (and said so), or cancelled: no fork either
      end
    end
    if choice then
      go()
    end
  end)
end

--- Visual `F`: fork at the selection's last message, the selection quoted in the fork's input.
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
  local at = host.request("locate", id, to - 1)
  if not at then
    return err("tine: the selection is not on a message")
  end
  local quoted = vim.tbl_map(function(l)
    return "> " .. l
  end, lines)
  table.insert(quoted, "")
  guarded(tine.fork, id, "", { at_message = at.message, prefill = table.concat(quoted, "\n") })
end

return M
