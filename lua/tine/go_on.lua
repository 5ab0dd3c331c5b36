-- A thread cut off when tine stopped (a quit or `:Tine restart` while it worked: quit.lua), opened
-- again: a line under the end of its display offers to go on, and `R` (keymaps.retry, in the
-- display or the empty input; `:Tine retry`) takes the offer. Nothing is asked in a dialog, so keys
-- typed as the thread opens go where they were typed. Any message sent in the thread, the one that
-- goes on included, takes the line away: the user chose.
local wrap = require("tine.wrap")

local M = {}

local ns = vim.api.nvim_create_namespace("tine.go_on")

--- What a thread cut off when tine stopped is sent when the user goes on with it.
local TEXT = "(tine stopped while you were working and cut your turn off. Go on from where you stopped.)"

---@type table<string, true> threads offered to go on, by id
local offered = {}

--- The display buffer of thread `id` (nil: it has none now).
---@param id string
---@return integer?
local function display_of(id)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.b[buf].tine_thread == id and vim.b[buf].tine_input ~= nil then
      return buf
    end
  end
end

--- The line's pieces, each kept whole on a line: what happened, then the key that goes on.
---@return string[]
local function pieces()
  local key = require("tine.config").options.keymaps.retry
  return {
    "⏸ tine stopped and cut this turn off:",
    ("%s goes on with it"):format(key or ":Tine retry"),
    "or write your next message",
  }
end

--- Draws the offer under the display's last line (again after the display changed or its window did).
---@param display integer
local function draw(display)
  vim.api.nvim_buf_clear_namespace(display, ns, 0, -1)
  if not offered[vim.b[display].tine_thread] then
    return
  end
  local width = wrap.window_width(display) or require("tine.config").options.sidebar.width
  local lines = wrap.pack(pieces(), width, { sep = " · ", after_first = " ", indent = "  " })
  local last = vim.api.nvim_buf_line_count(display)
  vim.api.nvim_buf_set_extmark(display, ns, last - 1, 0, {
    virt_lines = vim.tbl_map(function(line)
      return { { line, "WarningMsg" } }
    end, lines),
  })
  -- A window at the end shows what hangs under the last line too (Neovim scrolls to lines only).
  for _, win in ipairs(vim.fn.win_findbuf(display)) do
    if vim.api.nvim_win_get_cursor(win)[1] == last then
      require("tine.ui").show_end(win)
    end
  end
end

--- Offers to go on with thread `id`, just opened after tine's stop had cut it off.
---@param id string
function M.offer(id)
  offered[id] = true
  local display = display_of(id)
  if display then
    draw(display)
  end
end

--- Whether thread `id` is offered to go on.
---@param id string
---@return boolean
function M.offered(id)
  return offered[id] == true
end

--- A message went in thread `id`: the offer is gone.
---@param id string
function M.withdraw(id)
  if offered[id] then
    offered[id] = nil
    local display = display_of(id)
    if display then
      vim.api.nvim_buf_clear_namespace(display, ns, 0, -1)
    end
  end
end

--- Goes on with thread `id`: it is sent a note that it was cut off. A failure is reported.
---@param id string
function M.accept(id)
  require("tine.util").guarded(require("tine").send, id, TEXT)
end

--- The host wrote `buf`: a display with an offer keeps it under its (new) last line.
---@param buf integer
function M.follow(buf)
  if offered[vim.b[buf].tine_thread] and vim.b[buf].tine_input ~= nil then
    draw(buf)
  end
end

vim.api.nvim_create_autocmd({ "WinResized", "BufWinEnter" }, {
  group = vim.api.nvim_create_augroup("tine.go_on", { clear = true }),
  callback = function()
    for _, win in ipairs(vim.v.event.windows or { vim.api.nvim_get_current_win() }) do
      if vim.api.nvim_win_is_valid(win) then
        M.follow(vim.api.nvim_win_get_buf(win))
      end
    end
  end,
})

return M
