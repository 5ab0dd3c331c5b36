-- tine.nvim: chat with Claude agents in Neovim and fork the conversation at any moment.
-- The public Lua API (`:help tine-api`) and the commands' implementations. Every call is a
-- synchronous request to the host, which checks the arguments (node/rpc/methods.ts): a wrong one
-- is an error naming the function and the argument, and nothing changes. The types are in
-- lua/tine/types.lua.
local config = require("tine.config")
local host = require("tine.host")
local ui = require("tine.ui")

local M = {}

---@param opts? TineConfig
function M.setup(opts)
  config.setup(opts)
end

---@param message any
local function err(message)
  vim.notify(tostring(message), vim.log.levels.ERROR)
end

--- Runs `fn`, reporting a failure with vim.notify; returns ok, result.
---@param fn function
---@return boolean ok
---@return any result
local function guarded(fn, ...)
  local ok, result = pcall(fn, ...)
  if not ok then
    err(result)
  end
  return ok, result
end

--- A value as an error shows it: nil, 5, "text", a table.
---@param v any
---@return string
local function shown(v)
  return type(v) == "table" and "a table" or vim.inspect(v)
end

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
local function pick(method, prompt, empty, format_item, act)
  local ok, items = guarded(host.request, method)
  if not ok then
    return
  end
  if #items == 0 then
    return vim.notify(empty, vim.log.levels.INFO)
  end
  vim.ui.select(items, { prompt = prompt, format_item = format_item }, function(item)
    if item then
      act(item)
    end
  end)
end

-- ---- :help tine-api ----

--- This project's threads, live and stored, oldest first.
---@return TineThreadInfo[]
function M.threads()
  return host.request("threads")
end

--- The active thread's id.
---@return string?
function M.current()
  return host.request("current")
end

--- The thread's messages exactly as its next request would carry them.
---@param id string
---@return TineMessage[]
function M.messages(id)
  return host.request("messages", id)
end

--- The same entry as typing in the input buffer and pressing <CR> (`@fork ...` included).
---@param id string
---@param text string
---@return TineSendResult
function M.send(id, text)
  return host.request("send", id, text)
end

--- Aborts the thread's stream or pending tools.
---@param id string
---@return true
function M.abort(id)
  return host.request("abort", id)
end

--- Forks thread `id` (live or stored); returns the new thread's id, or nil when the call cancelled
--- a fork waiting on the same thread instead.
---@param id string
---@param prompt? string sent as the fork's first turn ("" or nil: none)
---@param opts? TineForkOpts
---@return string?
function M.fork(id, prompt, opts)
  return host.request("fork", id, prompt or "", opts or vim.empty_dict())
end

--- Shows thread `id` in the sidebar, loading it from disk when it is stored.
---@param id string
---@return string id
function M.open(id)
  local t = host.request("open", id)
  if t.read_only_by ~= nil and t.read_only_by ~= vim.NIL then
    vim.notify(
      ("tine: this thread is open for writing in another Neovim (pid %d): it is read-only here; fork it to continue"):format(
        t.read_only_by
      ),
      vim.log.levels.WARN
    )
  end
  ui.show(t.display, t.input)
  return t.id
end

---@param id string
---@param title string
---@return true
function M.rename(id, title)
  return host.request("rename", id, title)
end

--- Deletes thread `id` (no confirmation: the list's `D` asks). Its forks keep their history.
---@param id string
---@return true
function M.delete(id)
  return host.request("delete", id)
end

--- Ends fork `id`: it is closed and leaves the tree (`:Tine threads!` restores it).
---@param id string
---@return true
function M.discard(id)
  return host.request("fork_discard", id)
end

--- The parent of fork `id` takes over its history; the parent's own tail becomes a new fork.
---@param id string
---@return string parent_id the parent, now shown in the sidebar
function M.promote(id)
  local parent = host.request("fork_promote", id)
  local t = host.request("select", parent)
  ui.show(t.display, t.input)
  return parent
end

--- A summary of fork `id` goes to its parent's next message, then the fork ends. Without `text`
--- the fork is asked for the summary first.
---@param id string
---@param text? string
---@return true
function M.report(id, text)
  return host.request("fork_report", id, text or vim.NIL)
end

-- ---- Claude Code ----

--- Turns a Claude Code session (its id or transcript path) into a tine thread; returns its id.
---@param session string
---@return string id
function M.import_claude(session)
  local t = host.request("import_claude", session)
  ui.show(t.display, t.input)
  return t.id
end

--- :Tine import: pick one of this project's Claude Code sessions (newest first) to import.
function M.import_picker()
  pick("claude_sessions", "Import a Claude Code session", "tine: this project has no Claude Code sessions", function(s)
    return ("%s  %s"):format(when(s.modified), s.label)
  end, function(s)
    guarded(M.import_claude, s.id)
  end)
end

--- The configured Claude Code command, or an error that says how to set it.
---@return string[]
local function claude_command()
  local cmd = vim.deepcopy(config.options.claude_command)
  if vim.fn.executable(cmd[1]) == 0 then
    error(
      ('tine: `%s` was not found: install Claude Code, or set claude_command in setup() (e.g. { "npx", "claude" })'):format(
        cmd[1]
      ),
      0
    )
  end
  return cmd
end

--- :Tine claude [args]: a thread run by Claude Code in a terminal (with --session-id injected).
---@param args? string the command line's arguments, split as a shell would
---@return string id
function M.claude(args)
  claude_command()
  local t = host.request("new_claude", args or "")
  ui.show(t.display, t.input)
  vim.cmd("startinsert")
  return t.id
end

--- Writes thread `id` as a Claude Code session (the thread is unchanged) and continues it in
--- Claude Code, as a thread of its own under this one. Returns the new session id.
---@param id? string default: the thread in the current buffer, else the active one
---@return string session_id
function M.export_claude(id)
  id = id or vim.b.tine_thread or M.current()
  claude_command()
  local out = host.request("export_claude", id)
  ui.show(out.display, out.input)
  vim.notify(("tine: exported as Claude Code session %s (%s)"):format(out.session_id, out.path), vim.log.levels.INFO)
  return out.session_id
end

--- :Tine diff [a [b]]: two branches side by side from their common ancestor, in a new tab, in
--- diff mode. Without threads: the current fork against its parent. A failure is reported.
---@param a? string|integer a thread id or display number (default: the thread here)
---@param b? string|integer default: `a`'s parent
function M.diff(a, b)
  a = a or vim.b.tine_thread or M.current()
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
    pcall(vim.api.nvim_buf_set_name, buf, ("tine-diff://%s"):format(side.title))
    vim.wo.wrap = true
    vim.cmd("diffthis")
  end
end

--- How a fork ends, by name (:Tine fork discard|promote|report, the fork keys).
local fork_ends = { discard = M.discard, promote = M.promote, report = M.report }

--- :Tine fork discard|promote|report [text], and the fork keys: ends the fork here (or `id`).
--- A failure is reported.
---@param action "discard"|"promote"|"report"
---@param id? string default: the thread in the current buffer, else the active one
---@param text? string the report (without it, the fork is asked for one)
function M.fork_end(action, id, text)
  local finish = type(action) == "string" and fork_ends[action]
  if not finish then
    return err(('tine: fork_end: action must be "discard", "promote" or "report" (got %s)'):format(shown(action)))
  end
  id = id or vim.b.tine_thread or M.current()
  if not id then
    return err("tine: no fork here")
  end
  guarded(finish, id, text)
end

-- ---- commands and keymaps ----

--- :Tine: shows the active thread in the sidebar (a first thread when there is none), or hides it.
function M.toggle()
  if ui.sidebar_open() then
    return ui.close_sidebar()
  end
  local ok, t = guarded(host.request, "active_buffers")
  if ok then
    ui.show(t.display, t.input)
  end
end

--- :Tine new: a new thread in the sidebar.
function M.new_thread()
  local ok, t = guarded(host.request, "new_thread")
  if ok then
    ui.show(t.display, t.input)
  end
end

--- <CR> in an input buffer: the input is cleared only when the host accepted it. After an error
--- the new text replaces the failed turn, whose text comes back into the input.
---@param buf integer the input buffer
function M.send_input(buf)
  local id = vim.b[buf].tine_thread
  local text = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
  if vim.trim(text) == "" then
    return
  end
  local ok, result = guarded(host.request, "send", id, text)
  if ok and vim.api.nvim_buf_is_valid(buf) then
    local replaced = type(result) == "table" and result.replaced or ""
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, replaced ~= "" and vim.split(replaced, "\n") or {})
    if replaced ~= "" then
      vim.notify(
        "tine: your new message replaced the one that failed; its text is back in the input",
        vim.log.levels.INFO
      )
    end
  end
end

--- :Tine retry and `R` after an error: the failed turn is sent again. A failure is reported.
---@param id? string default: the thread in the current buffer, else the active one
function M.retry(id)
  id = id or vim.b.tine_thread or M.current()
  if id then
    guarded(host.request, "retry", id)
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
    if vim.b[b].tine_thread == id and vim.api.nvim_buf_get_name(b):match("/input$") then
      return M.send_input(b)
    end
  end
  return M.send_input(t.input)
end

--- :Tine abort and <C-c>: aborts the thread in the current window (or the active one).
function M.abort_current()
  local id = vim.b.tine_thread or M.current()
  if id then
    guarded(M.abort, id)
  end
end

--- A key on a display line: toggle a detail, or approve or deny the tool call under the cursor.
---@param id string the thread shown
---@param action "toggle"|"approve"|"deny"
function M.line_action(id, action)
  guarded(host.request, "line_action", id, vim.api.nvim_win_get_cursor(0)[1] - 1, action)
end

---@return string id
local function current_thread()
  local id = vim.b.tine_thread
  if not id and vim.bo.buftype == "terminal" then
    error(
      "tine: this terminal was not started by tine (:Tine claude), so its Claude Code session id is unknown: nothing was forked",
      0
    )
  end
  if not id then
    error("tine: :ForkThread works in a thread's display or input buffer (this buffer is not one)", 0)
  end
  return id
end

---@param id string
---@param opts TineForkOpts
local function ask_and_fork(id, opts)
  vim.ui.input({ prompt = "Fork prompt (empty: fork only): " }, function(answer)
    if answer == nil then
      return
    end -- cancelled
    guarded(M.fork, id, answer, opts)
  end)
end

--- :ForkThread[!] [--wait] [prompt]. With a bang (or `F`), forks at the message under the cursor;
--- with --wait, once the thread's reply has finished and its tools are answered.
---@param cmd { bang: boolean, args: string } as nvim_create_user_command gives it
function M.fork_command(cmd)
  local ok, id = guarded(current_thread)
  if not ok then
    return
  end
  -- A second :ForkThread on a thread with a waiting fork cancels that one.
  local cancelled_ok, cancelled = guarded(host.request, "cancel_waiting_fork", id)
  if not cancelled_ok or cancelled then
    return
  end
  local opts = vim.empty_dict()
  local args = cmd.args or ""
  if args:match("^%-%-wait%f[%s%z]") then
    opts = { wait = true }
    args = vim.trim(args:sub(7))
  elseif args:match("^%-%-bg%f[%s%z]") then
    opts = { background = true }
    args = vim.trim(args:sub(5))
    if args == "" then
      return err("tine: :ForkThread --bg needs a prompt")
    end
  end
  cmd = { bang = cmd.bang, args = args }
  if cmd.bang then
    local at = host.request("locate", id, vim.api.nvim_win_get_cursor(0)[1] - 1)
    if not at then
      return err("tine: the cursor is not on a message")
    end
    opts = vim.tbl_extend("force", opts, { at_message = at.message })
  end
  if cmd.args and cmd.args ~= "" then
    return guarded(M.fork, id, cmd.args, opts)
  end
  ask_and_fork(id, opts)
end

--- Visual `F`: fork at the selection's last message, the selection quoted in the fork's input.
function M.fork_selection()
  local ok, id = guarded(current_thread)
  if not ok then
    return
  end
  local from, to = vim.fn.line("v"), vim.fn.line(".")
  if from > to then
    from, to = to, from
  end
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<Esc>", true, false, true), "nx", false)
  local lines = vim.api.nvim_buf_get_lines(0, from - 1, to, false)
  local at = host.request("locate", id, to - 1)
  if not at then
    return err("tine: the selection is not on a message")
  end
  local quoted = vim.tbl_map(function(l)
    return "> " .. l
  end, lines)
  table.insert(quoted, "")
  guarded(M.fork, id, "", { at_message = at.message, prefill = table.concat(quoted, "\n") })
end

--- The display buffer of the thread shown in the current window (display or input).
---@return integer
local function current_display()
  local buf = vim.api.nvim_get_current_buf()
  return vim.b[buf].tine_display or buf
end

--- Shows thread `to` where the current thread is (display and input together), or jumps to it
--- when it is already in a window of this tab; the cursor goes to message `at_message`.
---@param to string
---@param at_message? integer
local function navigate(to, at_message)
  local t = host.request("select", to)
  local here = vim.tbl_filter(function(w)
    return vim.api.nvim_win_get_tabpage(w) == vim.api.nvim_get_current_tabpage()
  end, vim.fn.win_findbuf(t.display))
  if #here > 0 then
    vim.api.nvim_set_current_win(here[1])
  else
    ui.switch(current_display(), t.display, t.input)
  end
  if at_message then
    local at = host.request("locate_message", to, at_message)
    if at then
      vim.api.nvim_win_set_cursor(0, { at + 1, 0 })
    end
  end
end

--- `gp` in a fork: to the message its parent forked at. A failure is reported.
---@param id string the fork
function M.go_to_parent(id)
  local ok, lineage = guarded(host.request, "lineage", id)
  if not ok then
    return
  end
  if not lineage then
    return err("tine: this thread is not a fork")
  end
  guarded(navigate, lineage.parent_id, lineage.at_message)
end

--- `gb` on a message with a ⑂ mark: jump to the fork taken there (a choice when several were).
---@param id string the thread shown
function M.go_to_fork(id)
  local ok, forks = guarded(host.request, "forks_at", id, vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not ok then
    return
  end
  if #forks == 0 then
    return err("tine: no fork was taken at this message (forks show as ⑂ marks)")
  end
  if #forks == 1 then
    return guarded(navigate, forks[1].id)
  end
  vim.ui.select(forks, {
    prompt = "Go to fork",
    format_item = function(f)
      return f.title
    end,
  }, function(f)
    if f then
      guarded(navigate, f.id)
    end
  end)
end

--- :Tine threads[!]: the thread list.
---@param all? boolean every project's threads, grouped by project
function M.open_list(all)
  local ok, list = guarded(host.request, "thread_list", all == true)
  if not ok then
    return
  end
  local wins = vim.fn.win_findbuf(list.bufnr)
  if #wins > 0 then
    return vim.api.nvim_set_current_win(wins[1])
  end
  vim.cmd("topleft 10split")
  vim.api.nvim_win_set_buf(0, list.bufnr)
end

--- The thread on the list's cursor line.
---@return string id
local function list_thread()
  local id = host.request("thread_at_list_line", vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not id then
    error("tine: no thread on this line", 0)
  end
  return id
end

--- `<CR>` in the list: opens the thread on the line (or restores an ended fork).
function M.open_from_list()
  local item = host.request("list_item", vim.api.nvim_win_get_cursor(0)[1] - 1)
  if item and item.type == "ended-fork" then
    return guarded(host.request, "restore", item.id)
  end
  local ok, id = guarded(list_thread)
  if ok then
    guarded(M.open, id)
  end
end

--- `f` in the list: forks the thread on the line (asks for the prompt).
function M.fork_from_list()
  local ok, id = guarded(list_thread)
  if ok then
    ask_and_fork(id, vim.empty_dict())
  end
end

--- The fork keys in the list: ends the fork on the line.
---@param action "discard"|"promote"|"report"
function M.fork_end_from_list(action)
  local ok, id = guarded(list_thread)
  if ok then
    M.fork_end(action, id)
  end
end

--- `b` in the list: a background fork of the thread under the cursor.
function M.background_from_list()
  local ok, id = guarded(list_thread)
  if not ok then
    return
  end
  vim.ui.input({ prompt = "Background fork prompt: " }, function(answer)
    if answer and vim.trim(answer) ~= "" then
      guarded(M.fork, id, answer, { background = true })
    end
  end)
end

--- <C-c> in the list: cancels a waiting fork, or aborts the thread on the line.
function M.cancel_from_list()
  local ok, item = guarded(host.request, "list_item", vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not ok or not item then
    return
  end
  if item.type == "waiting-fork" then
    guarded(host.request, "cancel_waiting_fork", item.sourceId)
  else
    guarded(M.abort, item.id)
  end
end

---@param id string
---@return string
local function title_of(id)
  for _, t in ipairs(M.threads()) do
    if t.id == id then
      return t.title
    end
  end
  return id
end

--- `r` in the list: renames the thread on the line (asks for the title).
function M.rename_from_list()
  local ok, id = guarded(list_thread)
  if not ok then
    return
  end
  vim.ui.input({ prompt = "Rename thread: ", default = title_of(id) }, function(answer)
    if answer and vim.trim(answer) ~= "" then
      guarded(M.rename, id, answer)
    end
  end)
end

--- `D` in the list: deletes the thread on the line, once confirmed.
function M.delete_from_list()
  local ok, id = guarded(list_thread)
  if not ok then
    return
  end
  local choice =
    vim.fn.confirm(('Delete "%s"? Its forks keep their history.'):format(title_of(id)), "&Delete\n&Cancel", 2)
  if choice == 1 then
    guarded(M.delete, id)
  end
end

--- :Tine resume: pick one of this project's threads, most recent first, and open it.
function M.resume()
  pick("recent", "Resume thread", "tine: no threads in this project yet (:Tine new)", function(t)
    return ("%s  (%d msgs, %s, %s)"):format(t.title, t.messages, t.status, when(t.updated))
  end, function(t)
    guarded(M.open, t.id)
  end)
end

--- :Tine rename <title>: renames the thread in the current buffer (or the active one). A failure
--- is reported.
---@param title string
function M.rename_current(title)
  if type(title) ~= "string" then
    return err(("tine: rename_current: title must be a string (got %s)"):format(shown(title)))
  end
  local id = vim.b.tine_thread or M.current()
  if not id then
    return err("tine: no thread to rename")
  end
  if vim.trim(title) == "" then
    return err("tine: :Tine rename needs a title")
  end
  guarded(M.rename, id, title)
end

--- Starts a new host. Stored threads come back; the one that was in the sidebar is reopened.
function M.restart()
  local sb = ui.sidebar()
  local shown = sb.display
    and vim.api.nvim_win_is_valid(sb.display)
    and vim.b[vim.api.nvim_win_get_buf(sb.display)].tine_thread
  host.stop()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.b[buf].tine_thread or vim.api.nvim_buf_get_name(buf) == "tine://threads" then
      vim.b[buf].tine_closing = true
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
  ui.sidebars = {}
  if shown and pcall(M.open, shown) then
    return
  end
  M.toggle()
end

--- :Tine [new|send|abort|retry|threads[!]|resume|rename <title>|fork …|diff …|claude …|import …|export|restart]
---@param args { fargs: string[], args: string, bang: boolean } as nvim_create_user_command gives it
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
    return M.retry()
  end
  -- `:Tine threads!` reads as the bang of the list (`:Tine! threads` works too).
  if sub == "threads" or sub == "threads!" then
    return M.open_list(args.bang or sub == "threads!")
  end
  if sub == "resume" then
    return M.resume()
  end
  if sub == "rename" then
    return M.rename_current(table.concat(vim.list_slice(args.fargs, 2), " "))
  end
  if sub == "fork" then
    local text = table.concat(vim.list_slice(args.fargs, 3), " ")
    return M.fork_end(args.fargs[2], nil, text ~= "" and text or nil)
  end
  if sub == "diff" then
    return M.diff(args.fargs[2], args.fargs[3])
  end
  if sub == "import" then
    if args.fargs[2] then
      return guarded(M.import_claude, args.fargs[2])
    end
    return M.import_picker()
  end
  if sub == "export" then
    return guarded(M.export_claude)
  end
  -- The raw text after `claude`, so the user's quoting reaches the host's shell-like split intact.
  if sub == "claude" then
    return guarded(M.claude, args.args:match("^%s*claude%s*(.-)%s*$"))
  end
  if sub == "restart" then
    return M.restart()
  end
  err(
    "tine: unknown subcommand "
      .. sub
      .. " (new, send, abort, retry, threads, resume, rename, fork, diff, claude, import, export, restart)"
  )
end

return M
