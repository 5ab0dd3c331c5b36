-- What the host calls in Neovim (through nvim_exec_lua). Kept small: buffer writes and UI glue
-- (the buffers are made in buffers.lua and terminal.lua, their windows placed by ui.lua).
local buffers = require("tine.buffers")
local input_keys = require("tine.input_keys")
local terminal = require("tine.terminal")
local ui = require("tine.ui")

local M = {}

local ns = vim.api.nvim_create_namespace("tine")
local busy_ns = vim.api.nvim_create_namespace("tine.busy")
local spinners = {} -- buf -> { timer, started }
local frames = { "⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏" }

local null = require("tine.util").null

local function draw_spinner(buf)
  local s = spinners[buf]
  if not s or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local elapsed = (vim.uv.hrtime() - s.started) / 1e9
  local frame = frames[math.floor(elapsed * 10) % #frames + 1]
  local last = vim.api.nvim_buf_line_count(buf) - 1
  s.mark = vim.api.nvim_buf_set_extmark(buf, busy_ns, last, 0, {
    id = s.mark,
    virt_lines = { { { ("%s streaming · %.1fs"):format(frame, elapsed), "Comment" } } },
  })
end

local function set_busy(buf, busy)
  local s = spinners[buf]
  if busy and not s then
    s = { started = vim.uv.hrtime(), timer = vim.uv.new_timer() }
    spinners[buf] = s
    s.timer:start(
      100,
      100,
      vim.schedule_wrap(function()
        draw_spinner(buf)
      end)
    )
    draw_spinner(buf)
  elseif not busy and s then
    s.timer:stop()
    s.timer:close()
    spinners[buf] = nil
    if vim.api.nvim_buf_is_valid(buf) then
      vim.api.nvim_buf_clear_namespace(buf, busy_ns, 0, -1)
    end
  end
end

--- Applies the host's edits to a buffer; windows whose cursor was at the end follow the text.
function M.apply(buf, p)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local last = vim.api.nvim_buf_line_count(buf)
  local follow = {}
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if vim.api.nvim_win_get_cursor(win)[1] >= last - 1 then
      table.insert(follow, win)
    end
  end
  vim.bo[buf].modifiable = true
  for _, e in ipairs(p.edits) do
    vim.api.nvim_buf_set_lines(buf, e[1], e[2], false, e[3])
  end
  vim.bo[buf].modifiable = false
  require("tine.review_keys").edited(buf, p.edits)
  local count = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(follow) do
    vim.api.nvim_win_set_cursor(win, { count, 0 })
  end
  require("tine.go_on").follow(buf)
  if not null(p.marks) then
    vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
    for _, m in ipairs(p.marks) do
      if m.line < count then
        vim.api.nvim_buf_set_extmark(buf, ns, m.line, 0, { virt_text = { { m.text, "Special" } }, virt_text_pos = "eol" })
      end
    end
  end
  if not null(p.busy) then
    set_busy(buf, p.busy.since ~= false)
  end
  if spinners[buf] then
    draw_spinner(buf)
  end
  for _, win in ipairs(follow) do
    ui.show_end(win)
  end
end

--- The host is gone: no spinner may keep counting.
function M.stop_spinners()
  for buf in pairs(spinners) do
    set_busy(buf, false)
  end
end

function M.notify(message, level)
  vim.schedule(function()
    vim.notify(message, level == "error" and vim.log.levels.ERROR or vim.log.levels.INFO)
  end)
  return true
end

--- A remote MCP server's sign-in page: shown through the user's opener (lua/tine/mcp.lua).
function M.open_url(server, url)
  vim.schedule(function()
    require("tine.mcp").open_url(server, url)
  end)
  return true
end

--- The thread crossed `auto_compact`: the user is asked (later, not inside the host's call) whether to compact it.
function M.offer_compact(id, text)
  vim.schedule(function()
    vim.ui.select({ "Compact into a new thread", "Not now" }, { prompt = text }, function(choice)
      if choice == "Compact into a new thread" then
        require("tine.util").guarded(require("tine").compact, id)
      end
    end)
  end)
  return true
end

function M.create_thread_buffers(id, num, title, draft)
  return buffers.create_thread_buffers(id, num, title, draft)
end

function M.create_terminal_thread(id, num, title, argv, prompt, cwd)
  return terminal.create_terminal_thread(id, num, title, argv, prompt, cwd)
end

function M.set_pending(display, input, pending, title, tell)
  input_keys.set_pending(input, pending, title, tell)
  return true
end

function M.elicitation_waiting(id, title)
  require("tine.elicit").waiting(id, title)
  return true
end

function M.set_failed(input, failed)
  input_keys.set_failed(input, failed)
  return true
end

function M.file_written(path, by)
  vim.schedule(function()
    buffers.file_written(path, by)
  end)
  return true
end

function M.set_quickfix(title, items)
  vim.schedule(function()
    require("tine.worktree").set_quickfix(title, items)
  end)
  return true
end

function M.set_title(display, num, title)
  buffers.set_title(display, num, title)
  return true
end

--- The display's winbar: its thread's usage and cache (lua/tine/winbar.lua).
function M.set_winbar(display, text)
  require("tine.winbar").set(display, text)
  return true
end

function M.close_thread_buffers(display, input)
  vim.schedule(function()
    buffers.close_thread_buffers(display, input)
  end)
  return true
end

--- Fork `id` ended: its windows go to its parent (-1: none), then its buffers go.
function M.fork_ended(id, display, input, parent_display, parent_input)
  vim.schedule(function()
    ui.fork_ended(id, display, input, parent_display, parent_input)
    buffers.close_thread_buffers(display, input)
  end)
  return true
end

function M.open_fork(display, input, source_display, mode, opened)
  ui.open_fork(display, input, source_display, mode, opened)
  return true
end

--- What works now, in words: a quit or a restart asks first while anything does (quit.lua).
function M.set_working(list)
  require("tine.quit").set_working(list)
  return true
end

--- Calls made together (node/nvim/bridge.ts `together`): { fn, args } each, run in order, each
--- answered { ok, result or error } on its own.
function M.batch(calls)
  local answers = {}
  for i, c in ipairs(calls) do
    local ok, value = pcall(M[c[1]], unpack(c[2]))
    answers[i] = { ok, value == nil and vim.NIL or value }
  end
  return answers
end

--- The thread list, pushed when it changes (node/view/threads-mirror.ts).
--- A file changed in fan-out fork `id`'s worktree while it was at rest: a :Tine compare view showing it redraws.
function M.fork_files_changed(id)
  require("tine.compare").files_changed(id)
end

function M.threads_pushed(mirrored)
  require("tine.threads_mirror").pushed(mirrored)
  -- A :Tine compare view showing one of them redraws.
  require("tine.compare").pushed(mirrored)
  require("tine.review_signs").pushed(mirrored)
  return true
end

function M.list_buffer()
  return buffers.create_list_buffer()
end

--- A hunk of `path` was reviewed: its signs, a :Tine review showing it and the threads' displays' states are drawn again.
function M.review_changed(path)
  vim.schedule(function()
    -- Each on its own: one failing (a review window closed meanwhile) leaves the others drawn.
    for _, redraw in ipairs({
      function()
        require("tine.review_signs").changed(path)
      end,
      function()
        require("tine.review").changed(path)
      end,
      function()
        require("tine.review_keys").reviewed()
      end,
    }) do
      local ok, e = pcall(redraw)
      if not ok then
        vim.notify("tine: review: " .. tostring(e), vim.log.levels.WARN)
      end
    end
  end)
  return true
end

return M
