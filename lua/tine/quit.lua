-- Quitting Neovim, or restarting the host, while tine works (a reply streaming, a tool running, a
-- background fork not done) asks first, as Neovim does for a running terminal job. The host says
-- what works whenever that changes (set_working); a quit the user confirms lets it go, and the
-- host marks the threads it cut as interrupted (the list offers to go on with them).
--
-- How a quit is held: a hidden buffer (`acwrite`) is 'modified' while anything works, so Neovim's
-- own check refuses `:qa`, `:q` in the last window, `:wqa` and `:xa`, and `:qa!` quits as it
-- always does. Where Neovim refuses (it shows that buffer), or writes it (`:wqa`), tine asks.
local M = {}

---@type string[] what works, in words (the host's)
local working = {}
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

--- The host says what works now (nothing: {}).
---@param list string[]
function M.set_working(list)
  working = list
  local buf = hold_buffer()
  vim.bo[buf].modified = #working > 0
end

--- What works now, in words.
---@return string[]
function M.working()
  return working
end

--- Nothing holds a quit any more (the user said so, or the host is gone).
function M.let_go()
  working = {}
  if holder and vim.api.nvim_buf_is_valid(holder) then
    vim.bo[holder].modified = false
  end
end

--- Asks whether to `verb` ("Quit", "Restart") while something works; true when nothing does.
---@param verb string
---@return boolean
function M.confirm(verb)
  if #working == 0 then
    return true
  end
  local question = ("tine: %s.\n%s anyway? What works is cut off (marked interrupted; the list offers to go on with it)."):format(
    table.concat(working, "; "),
    verb
  )
  if vim.fn.confirm(question, ("&%s\n&Cancel"):format(verb), 2) ~= 1 then
    return false
  end
  M.let_go()
  return true
end

local group = vim.api.nvim_create_augroup("tine.quit", { clear = true })
vim.api.nvim_create_autocmd("ExitPre", {
  group = group,
  callback = function()
    quitting = true
    vim.schedule(function()
      quitting = false
    end)
  end,
})

--- Whether `win` is the last window a `:q` there would exit from.
local function last_window(win)
  if #vim.api.nvim_list_tabpages() > 1 then
    return false
  end
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if w ~= win and vim.api.nvim_win_get_config(w).relative == "" then
      return false
    end
  end
  return true
end

-- A quit Neovim refuses from the last window unloads that window's buffer (to show the holder
-- there): a thread's buffer would lose its text. A placeholder takes the window meanwhile, and the
-- thread's buffer comes back once the quit is refused (when it is not, Neovim is gone).
vim.api.nvim_create_autocmd("QuitPre", {
  group = group,
  callback = function()
    local win = vim.api.nvim_get_current_win()
    local buf = vim.api.nvim_win_get_buf(win)
    if #working == 0 or not vim.b[buf].tine_thread or not last_window(win) then
      return
    end
    local placeholder = vim.api.nvim_create_buf(false, true)
    vim.bo[placeholder].bufhidden = "wipe"
    vim.api.nvim_win_set_buf(win, placeholder)
    vim.schedule(function()
      if vim.api.nvim_win_is_valid(win) and vim.api.nvim_buf_is_valid(buf) then
        local now = vim.api.nvim_win_get_buf(win)
        if now == placeholder or now == holder then
          vim.api.nvim_win_set_buf(win, buf)
        end
      end
    end)
  end,
})

return M
