-- Code snapshots from the editor (:help tine-code): :Tine restore on a message (shows what it
-- will change and asks), :Tine restore undo, <CR> on a file of a reply's change list (the file
-- beside its state before the turn, in diff mode), and :Tine diff's list of the files two branches
-- differ in. The host plans and writes; this asks and shows.
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

--- Says how a restore went, naming the files it left alone and those it skipped.
---@param result TineRestoreResult
---@param what string
local function report(result, what)
  local msg = ("tine: %s %d file%s"):format(what, #result.written, #result.written == 1 and "" or "s")
  if #result.left > 0 then
    msg = msg .. ("; left alone (changed since, not overwritten): %s"):format(table.concat(result.left, ", "))
  end
  if #result.skipped > 0 then
    msg = msg .. ("; skipped (a link out of the project, and what is under it): %s"):format(table.concat(result.skipped, ", "))
  end
  vim.notify(msg, vim.log.levels.INFO)
end

--- Asks whether the files of thread `id` go back to message `at_message`'s snapshot, showing what
--- would change; files changed since the thread's last turn are named, and left alone unless the
--- answer says to overwrite them. Writes nothing.
---@param id string
---@param at_message integer
---@return { overwrite: boolean }|"nothing"|nil nil: cancelled; "nothing": the files are already so
function M.ask_restore(id, at_message)
  local plan = host.request("restore_plan", id, at_message)
  if #plan.files == 0 then
    return "nothing"
  end
  local lines = { ("Restore %d file%s to this message?"):format(#plan.files, #plan.files == 1 and "" or "s") }
  vim.list_extend(lines, vim.tbl_map(file_line, plan.files))
  local choices = "&Restore\n&Cancel"
  if #plan.changed_since > 0 then
    table.insert(lines, ("Changed since (left alone unless overwritten): %s"):format(table.concat(plan.changed_since, ", ")))
    choices = "&Restore\n&Overwrite mine too\n&Cancel"
  end
  table.insert(lines, ":Tine restore undo puts them back as they are now.")
  local answer = vim.fn.confirm(table.concat(lines, "\n"), choices, 1)
  local cancel = #plan.changed_since > 0 and 3 or 2
  if answer == 0 or answer == cancel then
    return nil
  end
  return { overwrite = #plan.changed_since > 0 and answer == 2 }
end

--- Restores the files of thread `id` to message `at_message`'s snapshot. Unless `opts.confirm` is
--- false, first asks (ask_restore); `opts.overwrite` writes files changed since too.
---@param id string
---@param at_message integer
---@param opts? { confirm?: boolean, overwrite?: boolean }
---@return TineRestoreResult? nil when the user cancelled
function M.restore(id, at_message, opts)
  opts = opts or {}
  local overwrite = opts.overwrite == true
  if opts.confirm ~= false then
    local answer = M.ask_restore(id, at_message)
    if answer == nil then
      return nil
    elseif answer == "nothing" then
      vim.notify("tine: the files are already as they were at this message: nothing to restore", vim.log.levels.INFO)
      return { written = {}, left = {}, skipped = {} }
    end
    overwrite = overwrite or answer.overwrite
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

--- Fills `buf` with `text` (nil: the file did not exist there) as a read-only scratch buffer
--- named `name`, highlighted as `path` would be, and puts its window in diff mode.
---@param buf integer
---@param name string
---@param text string|nil
---@param path string
local function scratch_side(buf, name, text, path)
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  local lines = text and vim.split(text, "\n") or {}
  if lines[#lines] == "" then
    table.remove(lines)
  end
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  pcall(vim.api.nvim_buf_set_name, buf, name)
  local ft = vim.filetype.match({ filename = path, buf = buf })
  if ft then
    vim.bo[buf].filetype = ft
  end
  vim.cmd("diffthis")
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
  local rel = vim.fn.fnamemodify(f.path, ":.")
  scratch_side(vim.api.nvim_get_current_buf(), ("tine-before://%s"):format(rel), f.before ~= vim.NIL and f.before or nil, rel)
  return true
end

--- A file of :Tine diff's list in a new tab: as branch a's latest snapshot holds it (left) beside
--- branch b's (right), in diff mode.
---@param code { a: string, b: string }
---@param titles string[] the two branches' titles
---@param path string
function M.open_branch_file(code, titles, path)
  local ok, f = guarded(host.request, "branch_file", code.a, code.b, path)
  if not ok then
    return
  end
  vim.cmd("tabnew")
  scratch_side(vim.api.nvim_get_current_buf(), ("tine-snapshot://%s/%s"):format(titles[1], path), f.a ~= vim.NIL and f.a or nil, path)
  vim.cmd("rightbelow vnew")
  scratch_side(vim.api.nvim_get_current_buf(), ("tine-snapshot://%s/%s"):format(titles[2], path), f.b ~= vim.NIL and f.b or nil, path)
end

--- :Tine diff's code, in a window below the two branches: the files they differ in (each as its
--- folder is now, or its latest snapshot: node/snapshot/compare.ts), with +/− (+ lines only the
--- left branch has), or why they cannot be compared. <CR> on a file opens it as each side holds
--- it. Nothing where snapshots are off.
---@param d TineBranchDiff
function M.branch_files(d)
  local code = d.code
  if code.kind == "off" then
    return
  end
  local titles = { d.sides[1].title, d.sides[2].title }
  local lines, paths = {}, {}
  if code.kind == "missing" then
    lines = { "Files: " .. code.why }
  elseif #code.files == 0 then
    lines = { ("Files: the same in %s and %s"):format(titles[1], titles[2]) }
  else
    lines = {
      ("Files: %d differ between %s (+) and %s (−) · <CR> opens one"):format(#code.files, titles[1], titles[2]),
    }
    for _, f in ipairs(code.files) do
      table.insert(lines, file_line(f))
      paths[#lines] = f.path
    end
  end
  local back = vim.api.nvim_get_current_win()
  local safe = require("tine.names").safe
  local buf = require("tine.ui").scratch_below(lines, 10, ("tine-diff://files/%s..%s"):format(safe(titles[1]), safe(titles[2])))
  vim.wo.winfixheight = true
  vim.keymap.set("n", "<CR>", function()
    local path = paths[vim.api.nvim_win_get_cursor(0)[1]]
    if path and code.kind == "files" then
      M.open_branch_file(code, titles, path)
    end
  end, { buffer = buf, desc = "tine: the file as both branches' snapshots hold it, in diff mode" })
  vim.api.nvim_set_current_win(back)
end

return M
