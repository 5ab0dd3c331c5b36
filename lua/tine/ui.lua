-- Windows, buffers and keymaps. Owns no state beyond which windows form the sidebar; everything
-- about threads lives in the host.
local config = require("tine.config")

local M = {}

--- Per tabpage: { display = win, input = win }.
M.sidebars = {}

local function valid_win(w)
  return w ~= nil and vim.api.nvim_win_is_valid(w)
end

local function scratch(name, filetype)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = filetype
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

local function map(buf, modes, lhs, fn, desc)
  if not lhs or lhs == "" then
    return
  end
  vim.keymap.set(modes, lhs, fn, { buffer = buf, nowait = true, silent = true, desc = "tine: " .. desc })
end

local function tine()
  return require("tine")
end

--- `key` in the input buffer's Normal mode: approves/denies while a tool waits for approval,
--- and is the key it always was otherwise (`a` appends, `d` deletes).
local function approval_key(input, id, lhs, action, desc)
  if not lhs or lhs == "" then
    return
  end
  vim.keymap.set(
    "n",
    lhs,
    function()
      if vim.b[input].tine_pending then
        vim.schedule(function()
          require("tine.keys").line_action(id, action)
        end)
        return "<Ignore>"
      end
      return lhs
    end,
    { buffer = input, expr = true, nowait = false, silent = true, desc = "tine: " .. desc .. " (while a tool waits)" }
  )
end

--- Buffers unloaded or wiped by the user (:bd, :bw) are recreated by the host on the next show:
--- it is told once the autocmd is over, with the unsent input so nothing typed is lost.
local function watch(buf, id, display, input)
  vim.api.nvim_create_autocmd("BufUnload", {
    buffer = buf,
    once = true,
    callback = function()
      if vim.b[buf].tine_closing or vim.v.exiting ~= vim.NIL then
        return
      end
      local draft = vim.api.nvim_buf_is_valid(input) and vim.api.nvim_buf_get_lines(input, 0, -1, false) or {}
      vim.schedule(function()
        -- The pair goes together (its names are freed for the new pair), then the host forgets it.
        M.close_thread_buffers(display, input)
        if require("tine.host").running() then
          pcall(require("tine.host").request, "buffers_gone", id, draft)
        end
      end)
    end,
  })
end

function M.create_thread_buffers(id, num, title, draft)
  local km = config.options.keymaps
  local display = scratch(("tine://%d/%s"):format(num, title), "markdown")
  vim.bo[display].modifiable = false
  local input = scratch(("tine://%d/input"):format(num), "markdown")
  vim.b[display].tine_thread = id
  vim.b[input].tine_thread = id
  vim.b[display].tine_input = input
  vim.b[input].tine_display = display
  if draft and #draft > 0 then
    vim.api.nvim_buf_set_lines(input, 0, -1, false, draft)
  end
  watch(display, id, display, input)
  watch(input, id, display, input)

  map(input, "n", km.send, function()
    require("tine.keys").send_input(input)
  end, "send")
  map(input, { "n", "i" }, km.send_any, function()
    require("tine.keys").send_input(input)
  end, "send (Insert mode too)")
  approval_key(input, id, km.approve, "approve", "approve the tool call")
  approval_key(input, id, km.deny, "deny", "deny the tool call")
  map(input, "n", km.help, function()
    M.show_keys(input)
  end, "show these keys")
  map(display, "n", km.help, function()
    M.show_keys(display)
  end, "show these keys")
  map(input, { "n", "i" }, km.abort, function()
    tine().abort(id)
  end, "abort")
  map(display, "n", km.abort, function()
    tine().abort(id)
  end, "abort")
  map(display, "n", km.retry, function()
    tine().retry(id)
  end, "send the failed turn again")
  map(display, "n", km.toggle_detail, function()
    require("tine.keys").line_action(id, "toggle")
  end, "expand/collapse")
  map(display, "n", km.approve, function()
    require("tine.keys").line_action(id, "approve")
  end, "approve tool call")
  map(display, "n", km.deny, function()
    require("tine.keys").line_action(id, "deny")
  end, "deny tool call")
  map(display, "n", km.fork_at_message, function()
    require("tine.fork").fork_command({ bang = true })
  end, "fork at this message")
  map(display, "x", km.fork_at_message, function()
    require("tine.fork").fork_selection()
  end, "fork quoting the selection")
  map(display, "n", km.go_to_parent, function()
    require("tine.keys").go_to_parent(id)
  end, "go to parent thread")
  map(display, "n", km.go_to_fork, function()
    require("tine.keys").go_to_fork(id)
  end, "go to the fork taken at this message")
  map(display, "n", km.fork_report, function()
    tine().fork_end("report", id)
  end, "fork: report to the parent and end")
  map(display, "n", km.fork_promote, function()
    tine().fork_end("promote", id)
  end, "fork: promote into the parent")
  map(display, "n", km.fork_discard, function()
    tine().fork_end("discard", id)
  end, "fork: discard")
  return { display = display, input = input }
end

local function setup_window(win)
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].number = false
  vim.wo[win].relativenumber = false
  vim.wo[win].signcolumn = "no"
  vim.wo[win].winfixwidth = false
end

--- Puts a thread's display and input buffers in a pair of stacked windows starting from `win`.
--- A Claude Code thread has one buffer, its terminal: one window.
local function fill_pair(win, display, input)
  vim.api.nvim_win_set_buf(win, display)
  if display == input then
    return win, win
  end
  setup_window(win)
  vim.api.nvim_set_current_win(win)
  vim.cmd(("belowright %dsplit"):format(config.options.sidebar.input_height))
  local iwin = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(iwin, input)
  setup_window(iwin)
  vim.wo[iwin].winfixheight = true
  return win, iwin
end

--- The sidebar's windows in the current tab (each tab has its own).
function M.sidebar()
  local tab = vim.api.nvim_get_current_tabpage()
  M.sidebars[tab] = M.sidebars[tab] or {}
  return M.sidebars[tab]
end

--- Both windows of the sidebar are open in this tab (after `:q` in one, `:Tine` restores the pair).
function M.sidebar_open()
  local sb = M.sidebar()
  return valid_win(sb.display) and valid_win(sb.input)
end

function M.close_sidebar()
  local sb = M.sidebar()
  for _, w in ipairs({ sb.display, sb.input }) do
    if valid_win(w) and #vim.api.nvim_tabpage_list_wins(0) > 1 then
      vim.api.nvim_win_close(w, false)
    end
  end
  sb.display, sb.input = nil, nil
end

--- Puts the cursor at the end of `win`, so it follows the text as it streams in.
local function follow(win)
  local buf = vim.api.nvim_win_get_buf(win)
  pcall(vim.api.nvim_win_set_cursor, win, { vim.api.nvim_buf_line_count(buf), 0 })
end

--- Shows a thread in the sidebar (opening it if needed) and focuses its input.
function M.show(display, input)
  local opts = config.options.sidebar
  local sb = M.sidebar()
  if valid_win(sb.display) and valid_win(sb.input) then
    vim.api.nvim_win_set_buf(sb.display, display)
    vim.api.nvim_win_set_buf(sb.input, input)
  else
    M.close_sidebar()
    vim.cmd((opts.side == "left" and "topleft" or "botright") .. (" %dvsplit"):format(opts.width))
    sb.display, sb.input = fill_pair(vim.api.nvim_get_current_win(), display, input)
  end
  follow(sb.display)
  vim.api.nvim_set_current_win(sb.input)
end

--- Switches every window pair in this tab that shows thread `from` (display and input alike) to
--- the thread `to`; without such a window, shows `to` in the sidebar. Returns `to`'s display window.
function M.switch(from_display, to_display, to_input)
  local from_input = vim.b[from_display] and vim.b[from_display].tine_input
  local display_win = nil
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local b = vim.api.nvim_win_get_buf(w)
    if b == from_display then
      vim.api.nvim_win_set_buf(w, to_display)
      display_win = display_win or w
    elseif from_input and b == from_input then
      vim.api.nvim_win_set_buf(w, to_input)
    end
  end
  if not display_win then
    M.show(to_display, to_input)
    display_win = M.sidebar().display
  end
  vim.api.nvim_set_current_win(display_win)
  return display_win
end

--- Narrowest a window may become when a fork opens beside its source.
local MIN_WIDTH = 40

--- Opens a fork beside its source, as `mode` says. A vertical split that would leave either
--- window narrower than MIN_WIDTH replaces the source in its windows instead (gp goes back).
function M.open_fork(display, input, source_display, mode, prefill)
  if prefill and prefill ~= "" then
    vim.api.nvim_buf_set_lines(input, 0, -1, false, vim.split(prefill, "\n"))
  end
  local near = nil
  for _, w in ipairs(vim.fn.win_findbuf(source_display)) do
    if vim.api.nvim_win_get_tabpage(w) == vim.api.nvim_get_current_tabpage() then
      near = w
      break
    end
  end
  if mode == "vsplit" and near and vim.api.nvim_win_get_width(near) < 2 * MIN_WIDTH + 1 then
    mode = "replace"
  end
  if mode == "split" and near and vim.api.nvim_win_get_height(near) < 2 * 6 + 1 then
    mode = "replace"
  end
  if mode == "tab" then
    vim.cmd("tabnew")
    local scratch_buf = vim.api.nvim_get_current_buf()
    fill_pair(vim.api.nvim_get_current_win(), display, input)
    if vim.api.nvim_buf_is_valid(scratch_buf) and scratch_buf ~= display then
      pcall(vim.api.nvim_buf_delete, scratch_buf, {})
    end
  elseif not near then
    M.show(display, input)
    return
  elseif mode == "replace" then
    M.switch(source_display, display, input)
    local shown = #vim.fn.win_findbuf(input) > 0
    if not shown then
      fill_pair(near, display, input)
    end
  else
    vim.api.nvim_set_current_win(near)
    vim.cmd(mode == "split" and "aboveleft split" or "belowright vsplit")
    fill_pair(vim.api.nvim_get_current_win(), display, input)
  end
  for _, w in ipairs(vim.fn.win_findbuf(display)) do
    follow(w)
  end
  for _, w in ipairs(vim.fn.win_findbuf(input)) do
    vim.api.nvim_set_current_win(w)
  end
end

--- The display buffer's name follows the thread's title.
function M.set_title(display, num, title)
  if not vim.api.nvim_buf_is_valid(display) then
    return
  end
  local old = vim.api.nvim_buf_get_name(display)
  pcall(vim.api.nvim_buf_set_name, display, ("tine://%d/%s"):format(num, title))
  -- Renaming leaves an unloaded buffer holding the old name (as `:file` does): wipe it.
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if b ~= display and not vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) == old then
      pcall(vim.api.nvim_buf_delete, b, { force = true })
    end
  end
end

--- A deleted thread's buffers go; windows showing them keep their place with another buffer.
function M.close_thread_buffers(display, input)
  for _, buf in ipairs({ input, display }) do
    if vim.api.nvim_buf_is_valid(buf) then
      vim.b[buf].tine_closing = true
      for _, win in ipairs(vim.fn.win_findbuf(buf)) do
        if #vim.api.nvim_list_wins() > 1 then
          pcall(vim.api.nvim_win_close, win, true)
        else
          vim.api.nvim_win_set_buf(win, vim.api.nvim_create_buf(true, false))
        end
      end
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
end

--- A Claude Code thread: a terminal running `argv` in the working directory. `prompt` is typed
--- into the CLI once its input box is there (its status line names shift+tab).
function M.create_terminal_thread(id, num, title, argv, prompt)
  local buf = vim.api.nvim_create_buf(false, false)
  vim.b[buf].tine_thread = id
  vim.b[buf].tine_input = buf
  vim.b[buf].tine_display = buf
  local job
  -- Started in a window of a real size (the terminal takes its size from it), closed after:
  -- the window the thread is shown in resizes it then.
  local float = vim.api.nvim_open_win(buf, false, {
    relative = "editor",
    row = 0,
    col = 0,
    style = "minimal",
    width = math.max(40, math.min(vim.o.columns - 2, 100)),
    height = math.max(10, vim.o.lines - 4),
  })
  vim.api.nvim_win_call(float, function()
    local opts = {
      cwd = vim.fn.getcwd(),
      on_exit = function()
        vim.schedule(function()
          pcall(require("tine.host").request, "terminal_exited", id)
        end)
      end,
    }
    if vim.fn.has("nvim-0.11") == 1 then
      opts.term = true
      job = vim.fn.jobstart(argv, opts)
    else
      job = vim.fn.termopen(argv, opts)
    end
  end)
  vim.api.nvim_win_close(float, true)
  vim.b[buf].tine_job = job
  pcall(vim.api.nvim_buf_set_name, buf, ("tine://%d/%s [claude]"):format(num, title))
  if prompt and prompt ~= "" then
    -- Typed once the CLI's input box is there, then entered once the text shows in it (keys sent
    -- while the CLI still draws its start-up screen are lost).
    local text = function()
      return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
    end
    local phase, ticks = "wait", 0
    local timer = vim.uv.new_timer()
    local function stop()
      timer:stop()
      timer:close()
    end
    timer:start(
      200,
      100,
      vim.schedule_wrap(function()
        ticks = ticks + 1
        if not vim.api.nvim_buf_is_valid(buf) or ticks > 600 then
          return stop()
        end
        if phase == "wait" and text():find("shift%+tab") then
          phase, ticks = "typed", 0
          vim.fn.chansend(job, prompt)
        elseif phase == "typed" then
          if text():find(prompt:sub(1, 20), 1, true) then
            vim.fn.chansend(job, "\r")
            stop()
          elseif ticks % 20 == 0 then
            vim.fn.chansend(job, prompt) -- not taken yet: again
          end
        end
      end)
    )
  end
  return { display = buf, input = buf }
end

--- g?: the tine keys of `buf`, in a float that `q` or <Esc> closes.
function M.show_keys(buf)
  local lines = {}
  for _, mode in ipairs({ "n", "i", "x" }) do
    for _, m in ipairs(vim.api.nvim_buf_get_keymap(buf, mode)) do
      if m.desc and m.desc:match("^tine: ") then
        table.insert(lines, ("%s  %-8s %s"):format(mode, m.lhs, m.desc:sub(7)))
      end
    end
  end
  table.sort(lines)
  local float = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(float, 0, -1, false, lines)
  vim.bo[float].modifiable = false
  vim.b[float].tine_keys_for = buf
  local width = 0
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  local win = vim.api.nvim_open_win(float, true, {
    relative = "editor",
    style = "minimal",
    border = "rounded",
    title = " tine keys ",
    width = math.min(width + 2, vim.o.columns - 4),
    height = math.min(#lines, vim.o.lines - 4),
    row = 2,
    col = math.max(0, math.floor((vim.o.columns - width) / 2)),
  })
  for _, key in ipairs({ "q", "<Esc>" }) do
    vim.keymap.set("n", key, function()
      pcall(vim.api.nvim_win_close, win, true)
    end, { buffer = float, nowait = true })
  end
  return float
end

--- The host says whether a tool of the thread waits for approval. `a`/`d` in the input then
--- answer it; a thread not in sight says so once.
function M.set_pending(display, input, pending, title, tell)
  if not vim.api.nvim_buf_is_valid(input) then
    return
  end
  vim.b[input].tine_pending = pending
  if pending and tell then
    local visible = false
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      local b = vim.api.nvim_win_get_buf(w)
      if b == display or b == input then
        visible = true
      end
    end
    if not visible then
      vim.notify(("tine: %s waits for your approval of a tool call"):format(title), vim.log.levels.WARN)
    end
  end
end

--- After a tool wrote `path`: a buffer holding it is reloaded, unless it has unsaved changes.
function M.file_written(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if
      vim.api.nvim_buf_is_loaded(buf)
      and vim.api.nvim_buf_get_name(buf) ~= ""
      and vim.fn.resolve(vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":p")) == vim.fn.resolve(path)
    then
      if vim.bo[buf].modified then
        vim.notify(
          ("tine: %s was changed by edit_file, but your buffer has unsaved changes: it was not reloaded (:e! to take the file's)"):format(
            vim.fn.fnamemodify(path, ":~:.")
          ),
          vim.log.levels.WARN
        )
      else
        vim.api.nvim_buf_call(buf, function()
          vim.cmd("silent! edit!")
        end)
      end
    end
  end
end

function M.create_list_buffer()
  local km = config.options.keymaps
  local buf = scratch("tine://threads", "tine-threads")
  vim.bo[buf].modifiable = false
  map(buf, "n", km.help, function()
    M.show_keys(buf)
  end, "show these keys")
  map(buf, "n", km.list_open, function()
    require("tine.list").open_from_list()
  end, "open thread")
  map(buf, "n", km.list_fork, function()
    require("tine.list").fork_from_list()
  end, "fork thread")
  map(buf, "n", km.list_rename, function()
    require("tine.list").rename_from_list()
  end, "rename thread")
  map(buf, "n", km.list_delete, function()
    require("tine.list").delete_from_list()
  end, "delete thread")
  map(buf, "n", km.abort, function()
    require("tine.list").cancel_from_list()
  end, "cancel a waiting fork / abort")
  map(buf, "n", km.list_background, function()
    require("tine.list").background_from_list()
  end, "background fork (reports back)")
  map(buf, "n", km.fork_report, function()
    require("tine.list").fork_end_from_list("report")
  end, "fork: report to the parent and end")
  map(buf, "n", km.fork_promote, function()
    require("tine.list").fork_end_from_list("promote")
  end, "fork: promote into the parent")
  map(buf, "n", km.fork_discard, function()
    require("tine.list").fork_end_from_list("discard")
  end, "fork: discard")
  return buf
end

--- Called when the host dies: thread buffers no longer update; say so in each, and in the list.
function M.host_died()
  require("tine.host_api").stop_spinners()
  local note = "⚠ The tine host exited: :Tine restart starts a new one (stored threads come back)."
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local is_list = vim.api.nvim_buf_get_name(buf) == "tine://threads"
    if (vim.b[buf].tine_thread and vim.api.nvim_buf_get_name(buf):match("/input$") == nil) or is_list then
      vim.bo[buf].modifiable = true
      if is_list then
        vim.api.nvim_buf_set_lines(buf, 0, 0, false, { note })
      else
        vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "", note })
      end
      vim.bo[buf].modifiable = false
    end
  end
end

return M
