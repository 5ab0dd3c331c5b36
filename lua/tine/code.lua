-- Code snapshots from the editor (:help tine-code): :Tine restore on a message (shows what it
-- will change and asks), :Tine restore undo, and <CR> on a file of a reply's change list (the
-- file beside its state before the turn, in diff mode). The host plans and writes; this asks.
local host = require("tine.host")
local util = require("tine.util")

local err, guarded = util.err, util.guarded

local M = {}

--- One file of a plan as the question lists it: `M src/a.ts  +2 −1`.
---@param f TineChangedFile
---@return string
local function file_line(f)
  local counts = f.added == vim.NIL and "binary" or ("+%d −%d"):format(f.added, f.removed)
  return ("  %s %s  %s"):format(({ added = "A", modified = "M", deleted = "D" })[f.status], f.path, counts)
end

--- Says how a restore went, naming the files it left alone.
---@param result TineRestoreResult
---@param what string
local function report(result, what)
  local msg = ("tine: %s %d file%s"):format(what, #result.written, #result.written == 1 and "" or "s")
  if #result.left > 0 then
    msg = msg .. ("; left alone (changed since, not overwritten): %s"):format(table.concat(result.left, ", "))
  end
  vim.notify(msg, vim.log.levels.INFO)
end

--- Restores the files of thread `id` to message `at_message`'s snapshot. Unless `opts.confirm` is
--- false, first shows what will change and asks; files changed since the thread's last turn are
--- named, and left alone unless the answer (or `opts.overwrite`) says to overwrite them.
---@param id string
---@param at_message integer
---@param opts? { confirm?: boolean, overwrite?: boolean }
---@return TineRestoreResult? nil when the user cancelled
function M.restore(id, at_message, opts)
  opts = opts or {}
  local overwrite = opts.overwrite == true
  if opts.confirm ~= false then
    local plan = host.request("restore_plan", id, at_message)
    if #plan.files == 0 then
      vim.notify("tine: the files are already as they were at this message: nothing to restore", vim.log.levels.INFO)
      return { written = {}, left = {} }
    end
    local lines = { ("Restore %d file%s to this message?"):format(#plan.files, #plan.files == 1 and "" or "s") }
    vim.list_extend(lines, vim.tbl_map(file_line, plan.files))
    local choices = "&Restore\n&Cancel"
    if #plan.changed_since > 0 then
      table.insert(
        lines,
        ("Changed since (left alone unless overwritten): %s"):format(table.concat(plan.changed_since, ", "))
      )
      choices = "&Restore\n&Overwrite mine too\n&Cancel"
    end
    table.insert(lines, ":Tine restore undo puts them back as they are now.")
    local answer = vim.fn.confirm(table.concat(lines, "\n"), choices, 1)
    local cancel = #plan.changed_since > 0 and 3 or 2
    if answer == 0 or answer == cancel then
      return nil
    end
    overwrite = overwrite or (#plan.changed_since > 0 and answer == 2)
  end
  local result = host.request("restore_code", id, at_message, { overwrite = overwrite })
  report(result, "restored")
  return result
end

--- Puts back the files the last restore wrote, exactly as they were before it.
---@return TineRestoreResult
function M.restore_undo()
  local result = host.request("restore_undo")
  report(result, "restore undone:")
  return result
end

--- :Tine restore [undo]: on the message under the cursor in a thread's display. A failure is reported.
---@param arg? string
function M.command(arg)
  if arg == "undo" then
    return guarded(M.restore_undo)
  end
  if arg ~= nil and arg ~= "" then
    return err("tine: :Tine restore takes nothing (the message under the cursor) or undo")
  end
  local id = vim.b.tine_thread
  if not id or vim.b.tine_display then
    return err("tine: :Tine restore works on a message in a thread's display")
  end
  local ok, at = guarded(host.request, "locate", id, vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not ok then
    return
  end
  if at == vim.NIL or at == nil then
    return err("tine: the cursor is not on a message")
  end
  guarded(M.restore, id, at.message)
end

--- <CR> on a file of a change list: the file, and beside it a scratch buffer with its text before
--- the turn, both in diff mode.
---@param id string the thread shown
---@return boolean acted the cursor was on a file of a change list
function M.open_change(id)
  local ok, f = guarded(host.request, "file_before", id, vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not ok then
    return true
  end
  if f == vim.NIL or f == nil then
    return false
  end
  vim.cmd("tabnew " .. vim.fn.fnameescape(f.path))
  vim.cmd("diffthis")
  vim.cmd("leftabove vnew")
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  local before = f.before == vim.NIL and {} or vim.split(f.before, "\n")
  if before[#before] == "" then
    table.remove(before)
  end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, before)
  vim.bo[buf].modifiable = false
  pcall(vim.api.nvim_buf_set_name, buf, ("tine-before://%s"):format(vim.fn.fnamemodify(f.path, ":.")))
  vim.cmd("diffthis")
  return true
end

return M
