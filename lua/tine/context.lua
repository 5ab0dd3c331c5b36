-- What the editor shows, gathered for mentions (@buf, @bufs, @diag, @diag!, @qf, and the unsaved
-- text of files) in one call from the host (node/context/editor.ts says what it asks and checks
-- the answer). Gathers and returns data only: what becomes of it is the host's. It also remembers
-- the window the user came from before entering a tine buffer: @buf and @diag mean that window.
local M = {}

--- The last window of the user's own (a file's buffer, not floating) that lost the focus.
local came_from = nil

--- A window of the user's own: not floating, showing a buffer of a file (tine's are scratch buffers).
local function users_window(win)
  if not win or not vim.api.nvim_win_is_valid(win) or vim.api.nvim_win_get_config(win).relative ~= "" then
    return false
  end
  return vim.bo[vim.api.nvim_win_get_buf(win)].buftype == ""
end

--- Starts remembering the window the user leaves (setup() calls it; once is enough).
function M.track()
  local group = vim.api.nvim_create_augroup("tine.context", { clear = true })
  vim.api.nvim_create_autocmd("WinLeave", {
    group = group,
    callback = function()
      local win = vim.api.nvim_get_current_win()
      if users_window(win) then
        came_from = win
      end
    end,
  })
end

--- The window a mention of "the current buffer" means: this one when it is the user's, else the one they came from.
local function source_window()
  local win = vim.api.nvim_get_current_win()
  if users_window(win) then
    return win
  end
  return users_window(came_from) and came_from or nil
end

--- A buffer's name and flags; with `with_text`, its lines joined (one string crosses the channel faster than a list).
local function buffer_text(buf, with_text)
  return {
    name = vim.api.nvim_buf_get_name(buf),
    text = with_text and table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n") or nil,
    eol = vim.bo[buf].eol or vim.bo[buf].fixeol,
    modified = vim.bo[buf].modified,
  }
end

--- Lines `around` a 1-based line of a buffer (loaded or not): { first = n, lines = { … } }.
local function lines_at(buf, lnum, around)
  local first = math.max(1, lnum - around)
  if vim.api.nvim_buf_is_loaded(buf) then
    return first, vim.api.nvim_buf_get_lines(buf, first - 1, lnum + around, false)
  end
  local name = vim.api.nvim_buf_get_name(buf)
  local ok, read = pcall(vim.fn.readfile, name, "", lnum + around)
  return first, ok and vim.list_slice(read, first, lnum + around) or {}
end

local SEVERITY = { "error", "warning", "info", "hint" }

local function diagnostics(bufnr, around)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local first, lines = lines_at(d.bufnr, d.lnum + 1, around)
    table.insert(out, {
      name = vim.api.nvim_buf_get_name(d.bufnr),
      lnum = d.lnum + 1,
      col = d.col + 1,
      severity = SEVERITY[d.severity] or "",
      source = d.source or "",
      message = d.message or "",
      first = first,
      lines = lines,
    })
  end
  return out
end

local function quickfix()
  local out = {}
  for _, e in ipairs(vim.fn.getqflist()) do
    local first, lines = 0, {}
    if e.bufnr > 0 and e.lnum > 0 then
      first, lines = lines_at(e.bufnr, e.lnum, 0)
    end
    table.insert(out, {
      name = e.bufnr > 0 and vim.api.nvim_buf_get_name(e.bufnr) or "",
      lnum = e.lnum,
      col = e.col,
      type = e.type or "",
      text = e.text or "",
      first = first,
      lines = lines,
    })
  end
  return out
end

--- What the host asks for (node/context/editor.ts GatherRequest), in one answer.
function M.gather(req)
  local out = { buffers = {}, diagnostics = {}, quickfix = {}, modified = {} }
  local win = source_window()
  local source_buf = win and vim.api.nvim_win_get_buf(win)
  if win then
    out.source = buffer_text(source_buf, req.source)
    out.source.cursor = vim.api.nvim_win_get_cursor(win)[1]
  end
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].buftype == "" then
      if req.buffers and vim.bo[buf].buflisted then
        table.insert(out.buffers, buffer_text(buf, true))
      end
      if req.modified and vim.bo[buf].modified then
        table.insert(out.modified, buffer_text(buf, true))
      end
    end
  end
  if req.diagnostics == "workspace" then
    out.diagnostics = diagnostics(nil, req.around)
  elseif req.diagnostics == "buffer" and source_buf then
    out.diagnostics = diagnostics(source_buf, req.around)
  end
  if req.quickfix then
    out.quickfix = quickfix()
  end
  return out
end

return M
