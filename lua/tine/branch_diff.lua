-- :Tine diff: two branches side by side from their common ancestor, in a new tab, in diff mode,
-- and below them the files their latest snapshots differ in (code.lua's branch_files). The host
-- finds the branches and their messages (`diff`); this lays them out.
local host = require("tine.host")
local util = require("tine.util")

local err, guarded = util.err, util.guarded

local M = {}

--- Without threads: the current fork against its parent. A failure is reported.
---@param a? string|integer a thread id or display number (default: the thread here)
---@param b? string|integer default: `a`'s parent
function M.open(a, b)
  a = a or vim.b.tine_thread or require("tine").current()
  if not a then
    return err("tine: :Tine diff needs a fork here, or two thread numbers")
  end
  local ok, d = guarded(host.request, "diff", a, b or vim.NIL)
  if not ok then
    return
  end
  vim.cmd("tabnew")
  local first = true
  for _, side in ipairs(d.sides) do
    if not first then
      vim.cmd("rightbelow vnew")
    end
    first = false
    local buf = vim.api.nvim_get_current_buf()
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].bufhidden = "wipe"
    vim.bo[buf].swapfile = false
    local header = ("%s · after %d shared message%s"):format(side.title, d.common, d.common == 1 and "" or "s")
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.list_extend({ header, "" }, side.lines))
    vim.bo[buf].modifiable = false
    pcall(vim.api.nvim_buf_set_name, buf, "tine-diff://" .. require("tine.names").safe(side.title))
    vim.wo.wrap = true
    vim.cmd("diffthis")
  end
  require("tine.code").branch_files(d)
end

return M
