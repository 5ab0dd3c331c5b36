-- What :Tine review draws (review.lua keeps the review's state): the scratch buffer of a file
-- before the turn, each hunk's state at its first changed line on both sides (the host's), the
-- winbars (review_bar.lua), and which hunk a window's cursor is on, the lines mapped by review_map.lua.
local bar = require("tine.review_bar")
local rmap = require("tine.review_map")

local M = {}

local ns = vim.api.nvim_create_namespace("tine_review_view")
M.ns = ns
local STATE = { kept = { "✓ kept", "DiagnosticOk" }, undone = { "↶ undone", "DiagnosticWarn" }, pending = { "· pending", "Comment" } }

--- A read-only scratch buffer holding `lines`, named `name` (made unique), highlighted as `path` is.
function M.scratch(lines, name, path)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].readonly = true
  if not pcall(vim.api.nvim_buf_set_name, buf, name) then
    pcall(vim.api.nvim_buf_set_name, buf, ("%s (%d)"):format(name, buf))
  end
  local ft = vim.filetype.match({ filename = path, contents = lines })
  if ft then
    vim.bo[buf].filetype = ft
  end
  return buf
end

--- Which side `win` shows: "old" (the text before the turn) or "new" (the working file).
function M.side_of(view, win)
  return win == view.left and "old" or "new"
end

--- The line of hunk `i` the cursor goes to on `side`: its first changed line, else its first line.
function M.target(view, i, side)
  local h, c = view.file.hunks[i], view.regions[i][1]
  if not c then
    return (rmap.rows(h, side, side == "new" and view.map or nil))
  end
  local line = side == "old" and c[1] or c[3]
  return side == "old" and math.max(line, 1) or view.map(math.max(line, 1))
end

--- Maps the lines again (the working file may have changed) and draws each hunk's state at its
--- first changed line on both sides, and the winbars. The hunks' regions are worked out once per
--- file's review (the host's answer), not per draw.
function M.draw(v)
  local now = vim.api.nvim_buf_get_lines(v.right_buf, 0, -1, false)
  v.map = rmap.mapper(v.after, v.gone and {} or now)
  if v.regions_of ~= v.file then
    v.regions, v.regions_of = rmap.regions(v.before, v.after, v.file.hunks), v.file
  end
  v.drawn_file, v.drawn_tick = v.file, vim.api.nvim_buf_get_changedtick(v.right_buf)
  for _, buf in ipairs({ v.left_buf, v.right_buf }) do
    vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  end
  local reviewed = 0
  for i, h in ipairs(v.file.hunks) do
    local s = STATE[h.state] or STATE.pending
    reviewed = reviewed + (h.state == "pending" and 0 or 1)
    local mark = { virt_text = { { ("  hunk %d %s"):format(h.index, s[1]), s[2] } }, virt_text_pos = "eol" }
    pcall(vim.api.nvim_buf_set_extmark, v.right_buf, ns, M.target(v, i, "new") - 1, 0, mark)
    pcall(vim.api.nvim_buf_set_extmark, v.left_buf, ns, M.target(v, i, "old") - 1, 0, mark)
  end
  bar.set(v, { file = v.file.path, at = v.at, files = #v.files, reviewed = reviewed, hunks = #v.file.hunks })
end

--- Opens the folds at hunk `i` (the one just acted on; nil: none) on both sides: an undo can leave
--- the file as it was before the turn, and diff mode then folds every line, the hunk and its mark too.
function M.in_sight(v, i)
  if not i or not v.file.hunks[i] then
    return
  end
  for _, win in ipairs({ v.left, v.right }) do
    local row = M.target(v, i, M.side_of(v, win))
    local count = vim.api.nvim_buf_line_count(vim.api.nvim_win_get_buf(win))
    vim.api.nvim_win_call(win, function()
      pcall(vim.cmd, ("%dfoldopen!"):format(math.min(math.max(row, 1), count)))
    end)
  end
end

--- Draws again only when the file's review or the working file's text changed since the last
--- draw: ]h and the keys on a hunk go by what is drawn.
function M.fresh(v)
  if v.drawn_file ~= v.file or v.drawn_tick ~= vim.api.nvim_buf_get_changedtick(v.right_buf) then
    M.draw(v)
  end
end

--- The index (in the file's hunks) of the hunk under the cursor in `win` (one of the review's), or nil.
function M.hunk_at(view, win)
  M.fresh(view)
  local side, row = M.side_of(view, win), vim.api.nvim_win_get_cursor(win)[1]
  for i, h in ipairs(view.file.hunks) do
    local first, last = rmap.rows(h, side, side == "new" and view.map or nil)
    if row >= first and row <= last then
      return i
    end
  end
  return nil
end

return M
