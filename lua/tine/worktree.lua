-- Worktree forks from the editor (:help tine-worktree): the quickfix list of a merge's conflicts
-- (the host fills it when a promoted fork's code is merged) and :Tine merge done[!], which
-- accepts the merges that had conflicts and removes their forks' worktrees. The host merges.
local host = require("tine.host")
local util = require("tine.util")

local guarded = util.guarded

local M = {}

--- The conflicts of a merge, as the quickfix list (opened, the cursor left where it was).
---@param title string
---@param items { filename: string, lnum: integer, text: string }[]
function M.set_quickfix(title, items)
  vim.fn.setqflist({}, " ", { title = title, items = items })
  local win = vim.api.nvim_get_current_win()
  vim.cmd("botright copen")
  if vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_set_current_win(win)
  end
end

--- Accepts the conflicted merges of this project's worktree forks and removes their worktrees;
--- refused while a listed file still holds conflict markers, unless `force`.
---@param force? boolean
---@return integer accepted
function M.merge_done(force)
  local n = host.request("merge_done", force == true)
  vim.notify(
    ("tine: %d merge%s accepted: the worktree%s removed"):format(n, n == 1 and "" or "s", n == 1 and " is" or "s are"),
    vim.log.levels.INFO
  )
  return n
end

--- :Tine merge done[!]. A failure is reported.
---@param arg? string
---@param bang boolean
function M.command(arg, bang)
  if arg ~= "done" and arg ~= "done!" then
    return util.err("tine: :Tine merge done[!] accepts the merges of promoted worktree forks")
  end
  guarded(M.merge_done, bang or arg == "done!")
end

return M
