-- What `g?` shows: the keys of the buffer it is pressed in (their descriptions, as buffers.lua set
-- them); in a thread's input also what can be typed there (the @-commands and mentions, from the
-- host's lists) and the :Tine commands. The window opens at the one `g?` was pressed in, above it
-- when there is room (an input keeps its text in sight), so the eye need not travel.
local host = require("tine.host")

local M = {}

--- The :Tine subcommands, with what each does (plugin/tine.lua completes the same names).
M.commands = {
  { ":Tine", "toggle the sidebar" },
  { ":Tine new", "start a thread" },
  { ":Tine send / abort / retry", "send the input / abort / send the failed turn again" },
  { ":Tine threads[!]", "the thread list (!: every project, ended forks)" },
  { ":Tine resume", "pick a recent thread and open it" },
  { ":Tine rename [title]", "rename this thread (asks without a title)" },
  { ":Tine fork report|promote|discard", "end this fork" },
  { ":Tine diff [a [b]]", "two branches side by side from where they split" },
  { ":Tine restore [undo]", "the code back to the message under the cursor" },
  { ":Tine merge done[!]", "accept a worktree fork's merge (!: with conflicts left)" },
  { ":Tine compact [instructions]", "a new thread under this one, from a summary of it" },
  { ":Tine model", "this thread's model and thinking effort" },
  { ":Tine claude [args]", "Claude Code in a terminal, as a thread" },
  { ":Tine import / export", "a Claude Code session in, this thread out" },
  { ":[range]Tine add / ask <q>", "lines or a file into the input / sent with a question" },
  { ":Tine restart", "a new host (stored threads and drafts come back)" },
  { ":Tine mcp", "the MCP servers: restart or stop one" },
  { ":ForkThread[!] [prompt]", "fork this thread (!: at the message under the cursor)" },
}

--- Two columns: `rows` of { left, right }, the left padded to the widest.
---@param rows string[][]
---@return string[]
local function columns(rows)
  local width = 0
  for _, r in ipairs(rows) do
    width = math.max(width, vim.fn.strdisplaywidth(r[1]))
  end
  return vim.tbl_map(function(r)
    return ("  %s%s  %s"):format(r[1], (" "):rep(width - vim.fn.strdisplaywidth(r[1])), r[2])
  end, rows)
end

--- The lines `g?` shows for `buf`.
---@param buf integer
---@return string[]
function M.lines(buf)
  local keys = {}
  for _, mode in ipairs({ "n", "i", "x" }) do
    for _, m in ipairs(vim.api.nvim_buf_get_keymap(buf, mode)) do
      if m.desc and m.desc:match("^tine: ") then
        table.insert(keys, { ("%s  %s"):format(mode, m.lhs), m.desc:sub(7) })
      end
    end
  end
  table.sort(keys, function(a, b)
    return a[1] < b[1]
  end)
  local lines = vim.list_extend({ "Keys" }, columns(keys))
  if vim.b[buf].tine_display then
    local ok, typed = pcall(host.request, "input_help")
    if ok then
      table.insert(lines, "")
      table.insert(lines, "Typed in the input")
      vim.list_extend(
        lines,
        columns(vim.tbl_map(function(t)
          return { t.usage, t.info }
        end, typed))
      )
    end
    table.insert(lines, "")
    table.insert(lines, "Commands")
    vim.list_extend(lines, columns(M.commands))
  end
  return lines
end

--- Shows what `g?` lists for `buf` in a float at the current window; `q` or <Esc> closes it.
---@param buf integer
---@return integer float the float's buffer
function M.show(buf)
  local lines = M.lines(buf)
  local float = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(float, 0, -1, false, lines)
  vim.bo[float].modifiable = false
  vim.b[float].tine_keys_for = buf
  local width = 0
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  -- As wide as the window it is pressed in (at least 60 columns): long lines wrap.
  width = math.min(width + 1, math.max(vim.api.nvim_win_get_width(0), 60), vim.o.columns - 2)
  -- Where the window is on the screen (1-based, as win_screenpos gives it; 0-based for the float).
  local top, left = unpack(vim.fn.win_screenpos(0))
  top, left = top - 1, left - 1
  local room_above = top - 2 -- its borders
  local tall = math.min(#lines, vim.o.lines - 4)
  local row
  if room_above >= math.min(tall, 10) then
    tall = math.min(tall, room_above)
    row = top - tall - 2
  else
    row = top
  end
  local win = vim.api.nvim_open_win(float, true, {
    relative = "editor",
    style = "minimal",
    border = "rounded",
    title = " tine keys ",
    width = width,
    height = tall,
    row = math.max(0, row),
    -- From the window's left edge, moved left as far as it must to fit on the screen.
    col = math.max(0, math.min(left, vim.o.columns - width - 2)),
  })
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].breakindent = true
  for _, key in ipairs({ "q", "<Esc>" }) do
    vim.keymap.set("n", key, function()
      pcall(vim.api.nvim_win_close, win, true)
    end, { buffer = float, nowait = true })
  end
  return float
end

return M
