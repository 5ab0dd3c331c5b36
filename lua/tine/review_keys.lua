-- The hunk review keys of a thread's display (:help tine-review): on a hunk of a file diff opened
-- under a turn's `▸ N files changed`, keep it, undo it, comment on it, through require("tine");
-- ]h [h move between hunks. A hunk is found from the display's text: the host's `locate` names the
-- message and the file of a line, and the hunk's index is the count of `@@` headers from the
-- file's line down to the cursor (the change list draws a file's diff under it, 6 spaces in).
-- Each hunk's state is drawn at the end of its `@@` line whenever it can have changed: a diff
-- opened (the host's edits bring `@@` lines) and a hunk reviewed anywhere (host_api.review_changed:
-- here, in :Tine review, through the API, or :Tine restore undo).
local host = require("tine.host")
local null = require("tine.util").null

local M = {}

local ns = vim.api.nvim_create_namespace("tine_review")
local HEADER = "^      @@ %-"
local DIFF = "^      "
local STATE = { kept = { "✓ kept", "DiagnosticOk" }, undone = { "↶ undone", "DiagnosticWarn" }, pending = { "· pending", "Comment" } }

--- Where line `row` (1-based) of the display stands in a change list: its message and file, or nil.
local function located(id, row)
  local ok, at = pcall(host.request, "locate", id, row - 1)
  if not ok or null(at) or null(at.file) then
    return nil
  end
  return at
end

--- The hunk under the cursor: { message, path, index, row (its `@@` line) }, or nil off a hunk.
---@param id string
function M.hunk_at(id)
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local at = located(id, row)
  if not at then
    return nil
  end
  local lines = vim.api.nvim_buf_get_lines(0, 0, row, false)
  local count, header = 0, nil
  for r = row, 1, -1 do
    local line = lines[r]
    if not line:find(DIFF) then
      break
    end
    if line:find(HEADER) then
      count = count + 1
      header = header or r
    end
  end
  if count == 0 then
    return nil
  end
  return { message = at.message, path = at.file, index = count, row = header }
end

--- Display buffers that showed a file diff when last drawn: the ones a review redraws.
---@type table<integer, true>
local with_diffs = {}

--- Shows each hunk's state at the end of its `@@` line, for every file diff open in `buf`.
---@param id string
---@param buf integer
function M.show_states(id, buf)
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  with_diffs[buf] = nil
  local rows_of = {} -- message -> { [path .. "#" .. index] = row }
  -- A run of diff lines is one file's diff (as hunk_at takes it): the host is asked once per run.
  local last_path, index, run_at = nil, 0, nil
  for r, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
    if not line:find(DIFF) then
      last_path, index, run_at = nil, 0, nil
    elseif line:find(HEADER) then
      with_diffs[buf] = true
      run_at = run_at or located(id, r)
      local at = run_at
      if at then
        if at.file ~= last_path then
          last_path, index = at.file, 0
        end
        index = index + 1
        rows_of[at.message] = rows_of[at.message] or {}
        rows_of[at.message][at.file .. "#" .. index] = r
      end
    end
  end
  for message, rows in pairs(rows_of) do
    local ok, hunks = pcall(require("tine").hunks, id, message)
    for _, h in ipairs(ok and hunks or {}) do
      local r = rows[h.path .. "#" .. h.index]
      local shown = STATE[h.state]
      -- The host may have shortened the buffer while a request above waited: a row gone is skipped.
      if r and shown and r <= vim.api.nvim_buf_line_count(buf) then
        vim.api.nvim_buf_set_extmark(buf, ns, r - 1, 0, { virt_text = { { "  " .. shown[1], shown[2] } } })
      end
    end
  end
end

--- Display buffers whose states are to be drawn again (once, however many changes come at once).
---@type table<integer, true>
local due = {}

--- Draws `buf`'s states again soon: not inside the host's call (the states ask the host).
local function redraw_soon(buf)
  if due[buf] then
    return
  end
  due[buf] = true
  vim.schedule(function()
    due[buf] = nil
    local id = vim.api.nvim_buf_is_valid(buf) and vim.b[buf].tine_thread or nil
    if id and not require("tine.names").is_input(buf) then
      local ok, e = pcall(M.show_states, id, buf)
      if not ok then
        vim.notify("tine: the hunks' states: " .. tostring(e), vim.log.levels.WARN)
      end
    end
  end)
end

--- The host edited display `buf` (host_api.apply): when the edits bring a hunk's `@@` line (a file
--- diff opened, or drawn again), the states are drawn.
---@param buf integer
---@param edits { [1]: integer, [2]: integer, [3]: string[] }[]
function M.edited(buf, edits)
  for _, e in ipairs(edits) do
    for _, line in ipairs(e[3]) do
      if line:find(HEADER) then
        return redraw_soon(buf)
      end
    end
  end
end

--- A hunk was reviewed (host_api.review_changed): the thread displays showing a file diff draw
--- their states again (the others, and hidden long transcripts, are not read at all).
function M.reviewed()
  for buf in pairs(with_diffs) do
    if vim.api.nvim_buf_is_loaded(buf) then
      redraw_soon(buf)
    else
      with_diffs[buf] = nil
    end
  end
end

--- `action` ("keep", "undo", "comment") on the hunk under the cursor; false off a hunk.
---@param id string
---@param action "keep"|"undo"|"comment"
---@return boolean
function M.act(id, action)
  local hunk = M.hunk_at(id)
  if not hunk then
    return false
  end
  local tine = require("tine")
  local function done(ok, e)
    if not ok then
      vim.notify(tostring(e), vim.log.levels.ERROR)
    end
  end
  if action == "keep" then
    done(pcall(tine.keep_hunk, id, hunk.path, hunk.index, hunk.message))
  elseif action == "undo" then
    done(pcall(tine.reject_hunk, id, hunk.path, hunk.index, hunk.message))
  else
    vim.ui.input({ prompt = ("Comment on hunk %d of %s: "):format(hunk.index, hunk.path) }, function(text)
      if text and vim.trim(text) ~= "" then
        done(pcall(tine.comment_hunk, id, hunk.path, hunk.index, text, hunk.message))
      end
    end)
  end
  return true
end

--- Moves the cursor to the next (`step` 1) or previous (-1) hunk of an open file diff.
---@param id string
---@param step 1|-1
function M.jump(id, step)
  local buf = vim.api.nvim_get_current_buf()
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local r = row + step
  while r >= 1 and r <= #lines do
    if lines[r]:find(HEADER) and located(id, r) then
      vim.api.nvim_win_set_cursor(0, { r, 0 })
      return
    end
    r = r + step
  end
  vim.notify(step > 0 and "tine: no hunk below (open a file of a turn's change list)" or "tine: no hunk above", vim.log.levels.INFO)
end

return M
