-- What `g?` shows: the keys of the buffer it is pressed in, under the task each was mapped for
-- (M.map: a key is mapped with its description and its task together), in the order they were
-- mapped; in a thread's input also what can be typed there (the @-commands and mentions, from the
-- host's lists) and the :Tine commands. Its lines are made to the float's width, so none is cut;
-- lines below the float are marked on its border. The window opens at the one `g?` was pressed
-- in, above it when there is room (an input keeps its text in sight), so the eye need not travel.
local host = require("tine.host")
local wrap = require("tine.wrap")

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
  { ":Tine agent <name>", "a thread run by an ACP agent (acp_agents)" },
  { ":Tine import / export", "a Claude Code session in, this thread out" },
  { ":[range]Tine add / ask <q>", "lines or a file into the input / sent with a question" },
  { ":Tine restart", "a new host (stored threads and drafts come back)" },
  { ":Tine mcp", "the MCP servers: restart or stop one" },
  { ":Tine compare [N]", "a fan-out's forks side by side: open, diff, promote, discard, graft (gp)" },
  { ":ForkThread[!] [prompt]", "fork this thread (!: at the message under the cursor)" },
}

--- A key as Neovim lists it, with its mode: `n <C-N>` for a mapping of `<C-n>` in Normal mode.
---@param mode string
---@param lhs string
local function key_id(mode, lhs)
  return mode .. " " .. vim.fn.keytrans(vim.keycode(lhs))
end

--- Files keys of `buf` under `task`, the heading g? lists them under (in the order they were
--- filed: the order of the tasks is that of their first key).
---@param buf integer
---@param modes string|string[]
---@param lhs string
---@param task string
local function file(buf, modes, lhs, task)
  local filed = vim.b[buf].tine_key_tasks or {}
  for _, mode in ipairs(type(modes) == "table" and modes or { modes }) do
    table.insert(filed, { key = key_id(mode, lhs), task = task })
  end
  vim.b[buf].tine_key_tasks = filed
end

--- Maps `lhs` in `buf` (nothing when the option is false or empty), described (`desc`) and filed
--- under `task` for g?. `opts` adds to or overrides `nowait` and `silent`.
---@param buf integer
---@param modes string|string[]
---@param lhs string|false|nil
---@param fn function
---@param desc string
---@param task string
---@param opts? table
function M.map(buf, modes, lhs, fn, desc, task, opts)
  if not lhs or lhs == "" then
    return
  end
  local o = vim.tbl_extend("force", { nowait = true, silent = true }, opts or {}, { buffer = buf, desc = "tine: " .. desc })
  vim.keymap.set(modes, lhs, fn, o)
  file(buf, modes, lhs, task)
end

--- Per buffer, per task: whether its keys apply now (a task with none always does).
---@type table<integer, table<string, fun(): boolean>>
local applies = {}

--- g? lists `buf`'s keys of `task` only when `fn` says they apply now (a fork's keys in a fork).
---@param buf integer
---@param task string
---@param fn fun(): boolean
function M.applies_when(buf, task, fn)
  if not applies[buf] then
    applies[buf] = {}
    vim.api.nvim_create_autocmd("BufWipeout", {
      buffer = buf,
      once = true,
      callback = function()
        applies[buf] = nil
      end,
    })
  end
  applies[buf][task] = fn
end

--- Where a key no task was filed for is listed.
local OTHER = "Other keys"

--- `buf`'s keys with a tine description, by task: { task, rows = { { key, desc } } }.
---@param buf integer
---@return { task: string, rows: string[][], typed?: boolean }[]
local function keys_by_task(buf)
  local filed = {}
  -- A key mapped again is the later mapping's.
  for i, f in ipairs(vim.b[buf].tine_key_tasks or {}) do
    filed[f.key] = { task = f.task, at = i }
  end
  local rows = {}
  for _, mode in ipairs({ "n", "i", "x" }) do
    for _, m in ipairs(vim.api.nvim_buf_get_keymap(buf, mode)) do
      if m.desc and m.desc:match("^tine: ") then
        local f = filed[key_id(mode, m.lhs)] or { task = OTHER, at = math.huge }
        table.insert(rows, { key = ("%s  %s"):format(mode, m.lhs), desc = m.desc:sub(7), task = f.task, at = f.at })
      end
    end
  end
  table.sort(rows, function(a, b)
    return a.at ~= b.at and a.at < b.at or (a.at == b.at and a.key < b.key)
  end)
  local groups, of = {}, {}
  local when = applies[buf] or {}
  for _, r in ipairs(rows) do
    if when[r.task] and not of[r.task] and not when[r.task]() then
      -- Asked once per task: its keys do not apply here now.
      of[r.task] = { rows = {} }
    elseif not of[r.task] then
      of[r.task] = { task = r.task, rows = {} }
      table.insert(groups, of[r.task])
    end
    table.insert(of[r.task].rows, { r.key, r.desc })
  end
  return groups
end

--- The widest left column of `sections`' rows.
---@param sections { rows: string[][] }[]
local function widest_left(sections)
  local left = 0
  for _, section in ipairs(sections) do
    for _, r in ipairs(section.rows) do
      left = math.max(left, vim.fn.strdisplaywidth(r[1]))
    end
  end
  return left
end

--- Two columns in `width` columns: the left `left` wide (at most half the width), the right
--- wrapped under itself; a left too wide for its column has the right under it.
---@param rows string[][]
---@param left integer
---@param width integer
---@return string[]
local function columns(rows, left, width)
  left = math.min(left, math.floor(width / 2) - 4)
  local indent = (" "):rep(2 + left + 2)
  local out = {}
  for _, r in ipairs(rows) do
    local key_width = vim.fn.strdisplaywidth(r[1])
    local right = wrap.words(r[2], width - #indent)
    if key_width > left then
      table.insert(out, "  " .. r[1])
    else
      table.insert(out, ("  %s%s  %s"):format(r[1], (" "):rep(left - key_width), table.remove(right, 1) or ""))
    end
    for _, line in ipairs(right) do
      table.insert(out, indent .. line)
    end
  end
  return out
end

--- The lines `g?` shows for `buf`, fitted to `width` columns: its keys under the tasks they were
--- filed under, then (in a thread's input) what can be typed there and the commands.
---@param buf integer
---@param width integer
---@return string[]
function M.lines(buf, width)
  local sections = keys_by_task(buf)
  -- The keys of every task in one column; what can be typed and the commands each in their own.
  local keys_left = widest_left(sections)
  if vim.b[buf].tine_display then
    local ok, typed = pcall(host.request, "input_help")
    if ok then
      table.insert(sections, {
        task = "Typed in the input",
        typed = true,
        rows = vim.tbl_map(function(t)
          return { t.usage, t.info }
        end, typed),
      })
    end
    table.insert(sections, { task = "Commands", rows = M.commands, typed = true })
  end
  local lines = {}
  for i, section in ipairs(sections) do
    if i > 1 then
      table.insert(lines, "")
    end
    table.insert(lines, section.task)
    vim.list_extend(lines, columns(section.rows, section.typed and widest_left({ section }) or keys_left, width))
  end
  return lines
end

--- Shows what `g?` lists for `buf` in a float at the current window; `q` or <Esc> closes it.
---@param buf integer
---@return integer float the float's buffer
function M.show(buf)
  -- As wide as the window it is pressed in (at least 60 columns, at most the screen's): the
  -- lines are made to that width, so that none is cut.
  local width = math.min(math.max(vim.api.nvim_win_get_width(0), 60), vim.o.columns - 2)
  local lines = M.lines(buf, width - 1)
  local widest = 0
  for _, l in ipairs(lines) do
    widest = math.max(widest, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width, widest + 1)
  local float = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(float, 0, -1, false, lines)
  vim.bo[float].modifiable = false
  vim.b[float].tine_keys_for = buf
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
  local more = #lines > tall
  local win = vim.api.nvim_open_win(float, true, {
    relative = "editor",
    style = "minimal",
    border = "rounded",
    title = " tine keys ",
    -- Lines below the window are marked on its border.
    footer = more and " ↓ more below: j, <C-d> " or nil,
    footer_pos = more and "right" or nil,
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
