-- tine.nvim: chat with Claude agents in Neovim and fork the conversation at any moment.
-- The public Lua API (`:help tine-api`) and the commands' implementations. Every call is a
-- synchronous request to the host.
local config = require("tine.config")
local host = require("tine.host")
local ui = require("tine.ui")

local M = {}

function M.setup(opts)
  config.setup(opts)
end

local function err(message)
  vim.notify(tostring(message), vim.log.levels.ERROR)
end

--- Runs `fn`, reporting a failure with vim.notify; returns ok, result.
local function guarded(fn, ...)
  local ok, result = pcall(fn, ...)
  if not ok then
    err(result)
  end
  return ok, result
end

--- A time (ms since the epoch) as a picker shows it.
local function when(ms)
  if ms == nil or ms == vim.NIL then
    return "now"
  end
  return os.date("%Y-%m-%d %H:%M", math.floor(ms / 1000))
end

--- Asks the host for a list (`method`) and lets the user pick one with vim.ui.select.
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

function M.threads()
  return host.request("threads")
end

function M.current()
  return host.request("current")
end

function M.messages(id)
  return host.request("messages", id)
end

--- The same entry as typing in the input buffer and pressing <CR>.
function M.send(id, text)
  return host.request("send", id, text)
end

function M.abort(id)
  return guarded(host.request, "abort", id)
end

--- Forks thread `id` (live or stored); returns the new thread's id. opts: { at_message = n (0-based) }.
function M.fork(id, prompt, opts)
  return host.request("fork", id, prompt or "", opts or vim.empty_dict())
end

--- Shows thread `id` in the sidebar, loading it from disk when it is stored.
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

function M.rename(id, title)
  return host.request("rename", id, title)
end

--- Deletes thread `id` (no confirmation: the list's `D` asks). Its forks keep their history.
function M.delete(id)
  return host.request("delete", id)
end

--- Ends fork `id`: it is closed and leaves the tree (`:Tine threads!` restores it).
function M.discard(id)
  return host.request("fork_discard", id)
end

--- The parent of fork `id` takes over its history; the parent's own tail becomes a new fork.
function M.promote(id)
  local parent = host.request("fork_promote", id)
  local t = host.request("select", parent)
  ui.show(t.display, t.input)
  return parent
end

--- A summary of fork `id` goes to its parent's next message, then the fork ends. Without `text`
--- the fork is asked for the summary first.
function M.report(id, text)
  return host.request("fork_report", id, text or vim.NIL)
end

-- ---- Claude Code ----

--- Turns a Claude Code session (its id or transcript path) into a tine thread; returns its id.
function M.import_claude(session)
  local t = host.request("import_claude", session)
  ui.show(t.display, t.input)
  return t.id
end

--- :Tine import: pick one of this project's Claude Code sessions (newest first) to import.
function M.import_picker()
  pick("claude_sessions", "Import a Claude Code session", "tine: this project has no Claude Code sessions", function(s)
    local first = s.first_prompt ~= vim.NIL and s.first_prompt or "(no prompt)"
    return ("%s  %s"):format(when(s.modified), (first:gsub("\n.*", "")))
  end, function(s)
    guarded(M.import_claude, s.id)
  end)
end

--- The configured Claude Code command, or an error that says how to set it.
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
function M.claude(args)
  claude_command()
  local t = host.request("new_claude", args or "")
  ui.show(t.display, t.input)
  vim.cmd("startinsert")
  return t.id
end

--- Writes thread `id` as a Claude Code session (the thread is unchanged) and continues it in
--- Claude Code, as a thread of its own under this one. Returns the new session id.
function M.export_claude(id)
  id = id or vim.b.tine_thread or M.current()
  claude_command()
  local out = host.request("export_claude", id)
  ui.show(out.display, out.input)
  vim.notify(("tine: exported as Claude Code session %s (%s)"):format(out.session_id, out.path), vim.log.levels.INFO)
  return out.session_id
end

--- :Tine diff [a [b]]: two branches side by side from their common ancestor, in a new tab, in
--- diff mode. Without threads: the current fork against its parent.
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

--- :Tine fork discard|promote|report [text], and the fork keys: on the current thread (or `id`).
function M.fork_end(action, id, text)
  id = id or vim.b.tine_thread or M.current()
  if not id then
    return err("tine: no fork here")
  end
  if action == "discard" then
    return guarded(M.discard, id)
  end
  if action == "promote" then
    return guarded(M.promote, id)
  end
  if action == "report" then
    return guarded(M.report, id, text)
  end
  err("tine: :Tine fork discard|promote|report [text]")
end

-- ---- commands and keymaps ----

function M.toggle()
  if ui.sidebar_open() then
    return ui.close_sidebar()
  end
  local ok, t = guarded(host.request, "active_buffers")
  if ok then
    ui.show(t.display, t.input)
  end
end

function M.new_thread()
  local ok, t = guarded(host.request, "new_thread")
  if ok then
    ui.show(t.display, t.input)
  end
end

--- <CR> in an input buffer: the input is cleared only when the host accepted it. After an error
--- the new text replaces the failed turn, whose text comes back into the input.
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

--- :Tine retry and `R` after an error: the failed turn is sent again.
function M.retry(id)
  id = id or vim.b.tine_thread or M.current()
  if id then
    guarded(host.request, "retry", id)
  end
end

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

function M.abort_current()
  local id = vim.b.tine_thread or M.current()
  if id then
    M.abort(id)
  end
end

function M.line_action(id, action)
  guarded(host.request, "line_action", id, vim.api.nvim_win_get_cursor(0)[1] - 1, action)
end

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
local function current_display()
  local buf = vim.api.nvim_get_current_buf()
  return vim.b[buf].tine_display or buf
end

--- Shows thread `to` where the current thread is (display and input together), or jumps to it
--- when it is already in a window of this tab; the cursor goes to message `at_message`.
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

local function list_thread()
  local id = host.request("thread_at_list_line", vim.api.nvim_win_get_cursor(0)[1] - 1)
  if not id then
    error("tine: no thread on this line", 0)
  end
  return id
end

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

function M.fork_from_list()
  local ok, id = guarded(list_thread)
  if ok then
    ask_and_fork(id, vim.empty_dict())
  end
end

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
    M.abort(item.id)
  end
end

local function title_of(id)
  for _, t in ipairs(M.threads()) do
    if t.id == id then
      return t.title
    end
  end
  return id
end

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

--- :Tine rename <title>: renames the thread in the current buffer (or the active one).
function M.rename_current(title)
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

--- :Tine [new|send|abort|threads[!]|resume|rename <title>|restart]
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
