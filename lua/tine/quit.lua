-- Quitting Neovim, or restarting the host, while tine works (a reply streaming, a tool running, a
-- background fork not done) asks first, as Neovim does for a running terminal job. The host says
-- what works whenever that changes (set_working); a quit the user confirms lets it go, and the
-- host marks the threads it cut as interrupted (the list offers to go on with them). A send counts
-- as working from the moment it is made until the host next says what works (it does after every
-- send): a quit typed right behind the send's <CR> comes before the host's word, and is asked too.
--
-- How a quit is held. A quit typed on the command line (`:qa`, `:q` in the last window, `:wqa`,
-- `:xa`, without `!`) is taken back before it runs (CmdlineLeave's v:event.abort, which Neovim
-- documents for this): tine asks, and runs it once the user says so, or says what works and how
-- to quit; Neovim sees no quit, so nothing changes and no error is given. Neovim has no way to
-- refuse any other quit (a mapping's <Cmd>, ZZ, a script) from an autocmd but to close its window,
-- so for those a hidden buffer (`acwrite`) is 'modified' while anything works: Neovim's own check
-- refuses them (its E37/E162 name that buffer), and tine asks; `:qa!` quits as it always does.
local M = {}

---@type string[] what works, in words (the host's)
local working = {}
--- Sends whose request is out, and sends the host took but has not told of since (set_working):
--- what they start works. Counts, so a refused send does not clear one taken before it.
local sends = { in_flight = 0, taken_untold = 0 }
local holder = nil
--- Set by ExitPre for the command that runs now: the write or the buffer shown is a quit's.
local quitting = false

--- The buffer that holds a quit while anything works.
local function hold_buffer()
  if holder and vim.api.nvim_buf_is_valid(holder) then
    return holder
  end
  holder = vim.api.nvim_create_buf(false, false)
  vim.bo[holder].buftype = "acwrite"
  vim.bo[holder].bufhidden = "hide"
  vim.bo[holder].swapfile = false
  pcall(vim.api.nvim_buf_set_name, holder, "tine: a thread works (:qa! quits and interrupts it)")
  vim.api.nvim_buf_set_lines(holder, 0, -1, false, { "tine: a thread works; quitting now interrupts it." })
  -- The quit this buffer refused: Neovim shows it in the current window. The window gets its
  -- buffer back, and the user is asked.
  vim.api.nvim_create_autocmd("BufEnter", {
    buffer = holder,
    callback = function()
      local win = vim.api.nvim_get_current_win()
      local back = vim.fn.bufnr("#")
      local by_quit = quitting
      vim.schedule(function()
        if vim.api.nvim_win_is_valid(win) and vim.api.nvim_win_get_buf(win) == holder then
          if back > 0 and vim.api.nvim_buf_is_valid(back) then
            vim.api.nvim_win_set_buf(win, back)
          else
            vim.api.nvim_win_set_buf(win, vim.api.nvim_create_buf(true, false))
          end
        end
        if by_quit and M.confirm("Quit") then
          vim.cmd("qall")
        end
      end)
    end,
  })
  -- :wqa and :xa write it: the write succeeds (and the quit goes on) once the user says so. Any
  -- other write (:wa) leaves it as it is.
  vim.api.nvim_create_autocmd("BufWriteCmd", {
    buffer = holder,
    callback = function()
      if quitting and (vim.v.cmdbang == 1 or M.confirm("Quit")) then
        M.let_go()
      end
    end,
  })
  return holder
end

--- What works now, in words: the host's, or a send it has not told of yet.
---@return string[]
function M.working()
  if #working == 0 and (sends.in_flight > 0 or sends.taken_untold > 0) then
    return { "a message you just sent starts its turn" }
  end
  return working
end

local function hold_while_working()
  -- Never in the way of what calls it (a send): a holder that cannot be made now (textlock) is made next time.
  pcall(function()
    local buf = hold_buffer()
    vim.bo[buf].modified = #M.working() > 0
  end)
end

--- The host says what works now (nothing: {}). A send still in flight stays counted: this word
--- may be from before the host took it.
---@param list string[]
function M.set_working(list)
  working = list
  if sends.in_flight == 0 then
    sends.taken_untold = 0
  end
  hold_while_working()
end

--- A send is made: what it starts counts as working until the host tells (send_ends).
function M.send_starts()
  sends.in_flight = sends.in_flight + 1
  hold_while_working()
end

--- The send's request came back; `taken`: the host took it (it tells what works next).
---@param taken boolean
function M.send_ends(taken)
  sends.in_flight = math.max(0, sends.in_flight - 1)
  if taken then
    sends.taken_untold = sends.taken_untold + 1
  end
  hold_while_working()
end

--- Nothing holds a quit any more (the user said so, or the host is gone).
function M.let_go()
  working = {}
  sends.in_flight, sends.taken_untold = 0, 0
  if holder and vim.api.nvim_buf_is_valid(holder) then
    vim.bo[holder].modified = false
  end
end

--- Asks whether to `verb` ("Quit", "Restart") while something works; true when nothing does.
---@param verb string
---@return boolean
function M.confirm(verb)
  local now = M.working()
  if #now == 0 then
    return true
  end
  local question = ("tine: %s.\n%s anyway? What works is cut off (marked interrupted; the list offers to go on with it)."):format(
    table.concat(now, "; "),
    verb
  )
  if vim.fn.confirm(question, ("&%s\n&Cancel"):format(verb), 2) ~= 1 then
    return false
  end
  M.let_go()
  return true
end

--- Whether `:q` in the current window would exit Neovim: as Neovim counts (only_one_window()),
--- floats, the preview window and help windows (but from a help window) do not count.
local function only_window()
  if #vim.api.nvim_list_tabpages() > 1 then
    return false
  end
  local current = vim.api.nvim_get_current_win()
  local from_help = vim.bo.buftype == "help"
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local counts = vim.api.nvim_win_get_config(w).relative == ""
      and not vim.wo[w].previewwindow
      and (from_help or vim.bo[vim.api.nvim_win_get_buf(w)].buftype ~= "help")
    if w ~= current and counts then
      return false
    end
  end
  return true
end

--- Quits that always exit, and those that exit from the only window (nvim_parse_cmd's names).
local EXITS = { qall = true, quitall = true, wqall = true, xall = true }
local EXITS_FROM_ONLY_WINDOW = { quit = true, wq = true, xit = true, exit = true }

--- Whether command line `line` starts with a quit that would exit Neovim, without `!`.
---@param line string
local function plain_exit(line)
  local ok, cmd = pcall(vim.api.nvim_parse_cmd, line, {})
  if not ok or cmd.bang then
    return false
  end
  if EXITS[cmd.cmd] then
    return true
  end
  -- A count (`:2q`) quits another window.
  local counted = type(cmd.range) == "table" and #cmd.range > 0
  return EXITS_FROM_ONLY_WINDOW[cmd.cmd] == true and not counted and only_window()
end

--- What the user is told when they would not quit: what works (as they were asked about it), and
--- how to quit all the same.
---@param asked string what worked when the question was put
---@return string
local function not_quitting(asked)
  local abort = require("tine.config").options.keymaps.abort
  return ("tine: not quitting: %s. `:qa!` quits and cuts it off (the list then offers to go on with it); to stop it first, %s."):format(
    asked,
    abort and (abort .. " in its display or input, or :Tine abort") or ":Tine abort"
  )
end

--- A typed quit taken back while something works: asks, then runs it or says why it did not.
---@param line string the command line as typed
local function ask_then_quit(line)
  -- Taken before asking: what works may stop while the question is open (a reply reaching a tool
  -- approval), and the answer names what the user was asked about.
  local asked = table.concat(M.working(), "; ")
  if not M.confirm("Quit") then
    return vim.notify(not_quitting(asked), vim.log.levels.WARN)
  end
  -- Nothing holds it now; Neovim's own checks still apply (a file of yours not written).
  local ok, err = pcall(vim.cmd, line)
  if not ok then
    vim.notify(tostring(err):match("(E%d+:.*)$") or tostring(err), vim.log.levels.ERROR)
  end
end

local group = vim.api.nvim_create_augroup("tine.quit", { clear = true })
vim.api.nvim_create_autocmd("CmdlineLeave", {
  group = group,
  pattern = ":",
  callback = function()
    if #M.working() == 0 or vim.v.event.abort then
      return
    end
    local line = vim.fn.getcmdline()
    if plain_exit(line) then
      -- v:event is a copy in Lua: only Vim script changes the one Neovim reads.
      vim.cmd("let v:event.abort = v:true")
      vim.schedule(function()
        ask_then_quit(line)
      end)
    end
  end,
})
vim.api.nvim_create_autocmd("ExitPre", {
  group = group,
  callback = function()
    quitting = true
    vim.schedule(function()
      quitting = false
    end)
  end,
})

-- A quit Neovim refuses from the last window unloads that window's buffer (to show the holder
-- there): a thread's buffer would lose its text. A placeholder takes the window meanwhile, and the
-- thread's buffer comes back once the quit is refused (when it is not, Neovim is gone).
vim.api.nvim_create_autocmd("QuitPre", {
  group = group,
  callback = function()
    local win = vim.api.nvim_get_current_win()
    local buf = vim.api.nvim_win_get_buf(win)
    if #M.working() == 0 or not vim.b[buf].tine_thread or not only_window() then
      return
    end
    -- Hidden, not wiped, when Neovim leaves it for the holder: wiped there, it ran the BufWipeout
    -- autocmds (a plugin's, any) inside Neovim's switch, which then never showed the holder, and
    -- the quit went unasked. It is wiped here, once the quit is over.
    local placeholder = vim.api.nvim_create_buf(false, true)
    vim.bo[placeholder].bufhidden = "hide"
    vim.api.nvim_win_set_buf(win, placeholder)
    vim.schedule(function()
      if vim.api.nvim_win_is_valid(win) and vim.api.nvim_buf_is_valid(buf) then
        local now = vim.api.nvim_win_get_buf(win)
        if now == placeholder or now == holder then
          vim.api.nvim_win_set_buf(win, buf)
        end
      end
      if vim.api.nvim_buf_is_valid(placeholder) and #vim.fn.win_findbuf(placeholder) == 0 then
        pcall(vim.api.nvim_buf_delete, placeholder, { force = true })
      end
    end)
  end,
})

return M
