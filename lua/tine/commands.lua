-- The :Tine command (plugin/tine.lua defines it): each subcommand is a function here. They act
-- through the API (init.lua) and report a failure instead of raising it. :ForkThread is in
-- fork.lua, `:Tine threads` in list.lua, `:Tine add` and `:Tine ask` in add.lua.
-- Over 300 lines: the one dispatch of :Tine's subcommands, each a short function; the pickers
-- and `:Tine restart` (what a restart keeps) are subcommands too.
local add = require("tine.add")
local buffers = require("tine.buffers")
local host = require("tine.host")
local keys = require("tine.keys")
local list = require("tine.list")
local placeholder = require("tine.placeholder")
local thread_refs = require("tine.thread_refs")
local tine = require("tine")
local ui = require("tine.ui")
local util = require("tine.util")

local err, guarded, shown = util.err, util.guarded, util.shown

local M = {}

--- A time (ms since the epoch) as a picker shows it.
---@param ms integer|vim.NIL|nil
---@return string
local function when(ms)
  if ms == nil or ms == vim.NIL then
    return "now"
  end
  return os.date("%Y-%m-%d %H:%M", math.floor(ms / 1000)) --[[@as string]]
end

--- Asks the host for a list (`method`) and lets the user pick one with vim.ui.select.
---@param method string
---@param prompt string
---@param empty string what to say when the list is empty
---@param format_item fun(item: table): string
---@param act fun(item: table)
---@param most? integer the first this many items only
local function pick(method, prompt, empty, format_item, act, most)
  local ok, items = guarded(host.request, method)
  if not ok then
    return
  end
  items = most and vim.list_slice(items, 1, most) or items
  if #items == 0 then
    return vim.notify(empty, vim.log.levels.INFO)
  end
  vim.ui.select(items, { prompt = prompt, format_item = format_item }, function(item)
    if item then
      act(item)
    end
  end)
end

--- :Tine: shows the active thread in the sidebar (a first thread when there is none), or hides it.
function M.toggle()
  if ui.sidebar_open() then
    return ui.close_sidebar()
  end
  -- With no host yet, the thread is ready for input at once and the host starts meanwhile.
  if placeholder.start() then
    return
  end
  local ok, t = guarded(host.request, "active_buffers")
  if ok then
    ui.show(t.display, t.input)
    list.offer_if_cut(t)
  end
end

--- :Tine new: a new thread in the sidebar.
function M.new_thread()
  local ok, t = guarded(host.request, "new_thread")
  if ok then
    ui.show(t.display, t.input)
  end
end

--- :Tine send: sends the input of the thread in the current window.
function M.send_current()
  local buf = vim.api.nvim_get_current_buf()
  if not vim.b[buf].tine_thread then
    return err("tine: not in a tine thread buffer")
  end
  local ok, t = guarded(host.request, "active_buffers")
  if not ok then
    return
  end
  local id = vim.b[buf].tine_thread
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.b[b].tine_thread == id and require("tine.names").is_input(b) then
      return keys.send_input(b)
    end
  end
  return keys.send_input(t.input)
end

--- :Tine abort and <C-c>: aborts the thread in the current window (or the active one).
function M.abort_current()
  local id = vim.b.tine_thread or tine.current()
  if id then
    guarded(tine.abort, id)
  end
end

--- :Tine import: pick one of this project's Claude Code sessions (newest first) to import.
function M.import_picker()
  pick("claude_sessions", "Import a Claude Code session", "tine: this project has no Claude Code sessions", function(s)
    -- The host's label tells a session from its fork: last prompt, message count, short id.
    return ("%s  %s"):format(when(s.modified), s.label)
  end, function(s)
    guarded(tine.import_claude, s.id)
  end)
end

--- Whether `vim.ui.select` is Neovim's own (a numbered list in the command line, not a picker
--- that filters), told by where it was defined.
local function builtin_select()
  local info = debug.getinfo(vim.ui.select, "S")
  return info ~= nil and info.source:match("vim[/\\]ui%.lua$") ~= nil
end

--- :Tine resume: pick one of this project's threads, most recent first, and open it. Neovim's own
--- select lists as many as the screen holds (the rest are in :Tine threads).
function M.resume()
  local fit = builtin_select() and math.max(1, vim.o.lines - 3) or nil
  pick("recent", "Resume thread", "tine: no threads with messages in this project yet (:Tine new)", function(t)
    -- Its number (as the list and buffer names show it), and its messages as the list counts them.
    local count = ("%d msg%s"):format(t.messages, t.messages == 1 and "" or "s")
    return ("#%d  %s  (%s, %s, %s)"):format(t.num, t.title, count, t.status, when(t.updated))
  end, function(t)
    guarded(tine.open, t.id)
  end, fit)
end

--- :Tine rename <title>: renames the thread in the current buffer (or the active one); without a
--- title, asks for one, its current title filled in. A failure is reported.
---@param title string
function M.rename_current(title)
  if type(title) ~= "string" then
    return err(("tine: rename_current: title must be a string (got %s)"):format(shown(title)))
  end
  local id = vim.b.tine_thread or tine.current()
  if not id then
    return err("tine: no thread to rename")
  end
  if vim.trim(title) ~= "" then
    return guarded(tine.rename, id, title)
  end
  local ok, threads = guarded(tine.threads)
  local current = ok and vim.tbl_filter(function(t)
    return t.id == id
  end, threads)[1]
  vim.ui.input({ prompt = "Rename thread: ", default = current and current.title or "" }, function(given)
    if given and vim.trim(given) ~= "" then
      guarded(tine.rename, id, given)
    end
  end)
end

--- :Tine compact [instructions]: the thread in the current window compacted into a new thread under it.
---@param instructions string
function M.compact_current(instructions)
  local id = vim.b.tine_thread or tine.current()
  if not id then
    return err("tine: no thread to compact")
  end
  guarded(tine.compact, id, instructions)
end

--- :Tine model: pick the model, then the thinking effort, of the thread in the current window.
--- `:Tine model <name> [effort]` chooses them without the pickers (the host refuses a model
--- setup does not offer, as model() does); without an effort the thread keeps its own.
---@param name? string
---@param effort? string
function M.model_picker(name, effort)
  local id = vim.b.tine_thread or tine.current()
  if not id then
    return err("tine: no thread to choose a model for")
  end
  local offered_ok, offered = guarded(host.request, "agent_settings", id)
  if not offered_ok then
    return
  end
  if offered ~= nil and offered ~= vim.NIL then
    return require("tine.agent_settings").pick(id, offered, name)
  end
  local ok, choices = guarded(host.request, "model_choices", id)
  if not ok then
    return
  end
  if name then
    return guarded(tine.model, id, name, effort or choices.effort)
  end
  local prompt = ("Model for this thread (now %s)"):format(
    (choices.current == nil or choices.current == vim.NIL) and "?" or choices.current
  )
  -- What the thread uses now is marked; `setup` is named by what setup's thinking is.
  local function marked(text, now)
    return now and text .. "  (now)" or text
  end
  local function model_item(model)
    return marked(model, model == choices.model)
  end
  local function effort_item(effort)
    local text = effort == "setup" and ("as in setup: " .. choices.setup_thinking) or effort
    return marked(text, effort == choices.effort)
  end
  vim.ui.select(choices.models, { prompt = prompt, format_item = model_item }, function(model)
    if not model then
      return
    end
    vim.ui.select(choices.efforts, { prompt = "Thinking effort", format_item = effort_item }, function(effort)
      if effort then
        guarded(tine.model, id, model, effort)
      end
    end)
  end)
end

--- Starts a new host (asking first while a thread works). Stored threads come back, with their
--- unsent input; the one that was in the sidebar is reopened. A thread never stored (no message yet) is unknown to the new host: one with unsent
--- text comes back as a new thread holding that text, never in another thread's input.
function M.restart()
  if not require("tine.quit").confirm("Restart") then
    return
  end
  local sb = ui.sidebar()
  local shown_buf = sb.display and vim.api.nvim_win_is_valid(sb.display) and vim.api.nvim_win_get_buf(sb.display)
  local shown = shown_buf and vim.b[shown_buf].tine_thread
  host.stop(3000) -- gone before the new one starts (host.stop says why)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    -- Unsent input outlives the host: the new buffers of the same thread start with it.
    if vim.b[buf].tine_thread and vim.b[buf].tine_display then
      buffers.keep_draft(vim.b[buf].tine_thread, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
    end
    if vim.b[buf].tine_thread or vim.api.nvim_buf_get_name(buf) == "tine://threads" then
      vim.b[buf].tine_closing = true
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
  ui.sidebars = {}
  local ok, threads = guarded(tine.threads)
  if not ok then
    return
  end
  local known = {}
  for _, t in ipairs(threads) do
    known[t.id] = true
  end
  local again = {}
  for id, draft in pairs(buffers.take_drafts_of_unknown(known)) do
    local made, t = guarded(host.request, "new_thread")
    if made then
      vim.api.nvim_buf_set_lines(t.input, 0, -1, false, draft)
      again[id] = t
    end
  end
  if shown and again[shown] then
    return ui.show(again[shown].display, again[shown].input)
  end
  local opened, t = false, nil
  if shown then
    opened, t = pcall(host.request, "open", shown)
  end
  if opened then
    -- Not offered to go on: the user has just said to cut it off (the list still offers).
    return ui.show(t.display, t.input)
  end
  M.toggle()
end

--- The lines a command was given (`:'<,'>Tine add`), or nil without a range.
---@param args { range: integer, line1: integer, line2: integer }
---@return TineRange?
local function range_of(args)
  return (args.range or 0) > 0 and { from = args.line1, to = args.line2 } or nil
end

--- :Tine compare [thread]: the fan-out of the thread named (its number or id: the source or a fork
--- of it), else of the thread here, or of the list's line.
---@param text string what follows `compare`
function M.compare_here(text)
  local refs = thread_refs.parse(text)
  if #refs > 1 then
    return err(("tine: :Tine compare takes one thread (its number), not %s"):format(table.concat(refs, ", ")))
  end
  local ask = vim.b.tine_thread
  if refs[1] and tonumber(refs[1]) then
    local ok, threads = guarded(tine.threads)
    local named = ok and vim.iter(threads):find(function(t)
      return t.num == tonumber(refs[1])
    end)
    if not named then
      return ok and err(("tine: :Tine compare %s: no thread #%s (:Tine threads lists them)"):format(refs[1], refs[1]))
    end
    ask = named.id
  elseif refs[1] then
    ask = refs[1] -- an id: the host says if it is no fan-out's
  elseif vim.bo.filetype == "tine-threads" then
    ask = host.request("thread_at_list_line", vim.api.nvim_win_get_cursor(0)[1] - 1)
  end
  return require("tine.compare").open(ask ~= vim.NIL and ask or nil)
end

--- :Tine [new|send|abort|retry|threads[!]|resume|rename <title>|fork …|diff …|restore [undo]|merge done[!]|claude …|agent <name>|import …|export|add|ask …|restart|mcp|compare|review]
---@param args { fargs: string[], args: string, bang: boolean, range: integer, line1: integer, line2: integer } as nvim_create_user_command gives it
function M.command(args)
  local sub = args.fargs[1]
  if sub == nil then
    return M.toggle()
  end
  if sub == "new" then
    return M.new_thread()
  end
  if sub == "send" then
    return M.send_current()
  end
  if sub == "abort" then
    return M.abort_current()
  end
  if sub == "retry" then
    return tine.retry()
  end
  -- `:Tine threads!` reads as the bang of the list (`:Tine! threads` works too).
  if sub == "threads" or sub == "threads!" then
    return list.open_list(args.bang or sub == "threads!")
  end
  if sub == "resume" then
    return M.resume()
  end
  if sub == "rename" then
    return M.rename_current(table.concat(vim.list_slice(args.fargs, 2), " "))
  end
  if sub == "fork" then
    local text = table.concat(vim.list_slice(args.fargs, 3), " ")
    return tine.fork_end(args.fargs[2], nil, text ~= "" and text or nil)
  end
  if sub == "diff" then
    -- Numbers as <Tab> completes them, `3  try a hash map`, or bare.
    local refs = thread_refs.parse((args.args:gsub("^%s*%S+", "", 1)))
    if #refs > 2 then
      return err(("tine: :Tine diff takes two threads at most (their numbers), not %s"):format(table.concat(refs, ", ")))
    end
    return tine.diff(refs[1], refs[2])
  end
  if sub == "restore" then
    return require("tine.code").command(args.fargs[2])
  end
  if sub == "merge" then
    return require("tine.worktree").command(args.fargs[2], args.bang)
  end
  if sub == "import" then
    if args.fargs[2] then
      return guarded(tine.import_claude, args.fargs[2])
    end
    return M.import_picker()
  end
  if sub == "export" then
    return guarded(tine.export_claude)
  end
  -- The raw text after `claude`, so the user's quoting reaches the host's shell-like split intact.
  if sub == "claude" then
    return guarded(tine.claude, args.args:match("^%s*claude%s*(.-)%s*$"))
  end
  if sub == "agent" then
    return guarded(tine.agent, args.fargs[2])
  end
  if sub == "add" then
    return guarded(add.add, range_of(args))
  end
  if sub == "ask" then
    return add.ask(args.args:match("^%s*ask%s*(.-)%s*$"), range_of(args))
  end
  if sub == "restart" then
    return M.restart()
  end
  if sub == "mcp" then
    return require("tine.mcp").pick()
  end
  if sub == "compare" then
    return M.compare_here((args.args:gsub("^%s*%S+", "", 1)))
  end
  if sub == "compact" then
    return M.compact_current(args.args:match("^%s*compact%s*(.-)%s*$"))
  end
  if sub == "model" then
    return M.model_picker(args.fargs[2], args.fargs[3])
  end
  if sub == "review" then
    return guarded(require("tine.review").open)
  end
  err(
    "tine: unknown subcommand "
      .. sub
      .. " (new, send, abort, retry, threads, resume, rename, fork, diff, restore, merge, claude, agent, import, export, add, ask, restart, mcp, compare, compact, model, review)"
  )
end

return M
