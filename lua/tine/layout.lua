-- How the sidebar's threads share the screen: each thread a column (its display over its input),
-- forks side by side widening the sidebar into the editor while they stand (never below
-- `sidebar.min_editor_width` of editor) and narrowing it back when they close, threads stacked in
-- one column sharing its height, and the sidebar's width kept when the terminal is resized.
-- Read from the window layout each time (vim.fn.winlayout): it keeps no state. ui.lua places the
-- windows and calls it.
local config = require("tine.config")

local M = {}

--- The narrowest a thread's column may be beside another.
M.MIN_COLUMN = 40
--- The fewest lines a thread stacked in a column keeps: 3 of display, 1 of input, 2 status lines.
local MIN_STACKED = 6

local function is_thread_win(w)
  return vim.b[vim.api.nvim_win_get_buf(w)].tine_thread ~= nil
end

--- The windows of a thread column: a layout node that is a thread window, or a column of them.
local function column_wins(node)
  if node[1] == "leaf" then
    return is_thread_win(node[2]) and { node[2] } or nil
  end
  if node[1] ~= "col" then
    return nil
  end
  local wins = {}
  for _, child in ipairs(node[2]) do
    if child[1] ~= "leaf" or not is_thread_win(child[2]) then
      return nil
    end
    table.insert(wins, child[2])
  end
  return wins
end

--- A layout node's width in columns (windows and the separators between them).
local function node_width(node)
  if node[1] == "leaf" then
    return vim.api.nvim_win_get_width(node[2])
  end
  if node[1] == "col" then
    return node_width(node[2][1])
  end
  local sum = #node[2] - 1
  for _, child in ipairs(node[2]) do
    sum = sum + node_width(child)
  end
  return sum
end

local function first_leaf(node)
  return node[1] == "leaf" and node[2] or first_leaf(node[2][1])
end

--- The sidebar in this tab: the row of windows whose outer end (sidebar.side) holds thread columns.
--- `columns`: each column's windows, the one nearest the editor first; `editor`: the row's other nodes.
---@return { columns: integer[][], editor: table[], width: integer }?
function M.sidebar(node)
  node = node or vim.fn.winlayout()
  if node[1] == "leaf" then
    return nil
  end
  if node[1] == "row" then
    local kids = node[2]
    local right = config.options.sidebar.side ~= "left"
    local columns, at = {}, right and #kids or 1
    while kids[at] do
      local wins = column_wins(kids[at])
      if not wins then
        break
      end
      table.insert(columns, 1, wins)
      at = at + (right and -1 or 1)
    end
    if #columns > 0 then
      local editor = right and vim.list_slice(kids, 1, at) or vim.list_slice(kids, at, #kids)
      return { columns = columns, editor = editor, width = node_width(node) }
    end
  end
  for _, child in ipairs(node[2]) do
    local found = M.sidebar(child)
    if found then
      return found
    end
  end
end

--- How wide the sidebar is with `n` thread columns in a row `width` wide: `sidebar.width` each,
--- room taken from the editor down to `sidebar.min_editor_width`. One column keeps at least
--- MIN_COLUMN (capped to the screen): on a narrow screen the editor gives way before the chat
--- gets unreadable, but a 90-column screen still leaves the editor its `min_editor_width`.
local function sidebar_width(n, width, has_editor)
  if not has_editor then
    return width
  end
  local opts = config.options.sidebar
  local one = math.min(opts.width, math.max(M.MIN_COLUMN, width - 1 - opts.min_editor_width), width - 2)
  local room = math.max(one, width - 1 - opts.min_editor_width)
  return math.max(2 * n - 1, math.min(n * opts.width + n - 1, room))
end

--- The width each of `n` columns gets.
local function column_width(n, total)
  return math.floor((total - (n - 1)) / n)
end

--- Whether a thread column can be added beside the column holding `win` (at least MIN_COLUMN each).
function M.can_add_column(win)
  local sb = M.sidebar()
  if not sb then
    return false
  end
  for _, wins in ipairs(sb.columns) do
    if vim.tbl_contains(wins, win) then
      local n = #sb.columns + 1
      return column_width(n, sidebar_width(n, sb.width, #sb.editor > 0)) >= M.MIN_COLUMN
    end
  end
  return false
end

--- The thread column holding `win`, or nil.
function M.column_of(win)
  local sb = M.sidebar()
  for _, wins in ipairs(sb and sb.columns or {}) do
    if vim.tbl_contains(wins, win) then
      return wins
    end
  end
end

--- A column's windows grouped by thread: a display and its input under it, or one window alone.
local function units(wins)
  local out, i = {}, 1
  while wins[i] do
    local buf = vim.api.nvim_win_get_buf(wins[i])
    local input = vim.b[buf].tine_input
    local below = wins[i + 1] and vim.api.nvim_win_get_buf(wins[i + 1])
    if input and input ~= buf and below == input then
      table.insert(out, { wins[i], wins[i + 1] })
      i = i + 2
    else
      table.insert(out, { wins[i] })
      i = i + 1
    end
  end
  return out
end

--- A column's height in lines, status lines included.
local function column_height(wins)
  local h = 0
  for _, w in ipairs(wins) do
    h = h + vim.api.nvim_win_get_height(w) + 1
  end
  return h
end

--- Whether one more thread fits stacked in the column holding `win`.
function M.can_stack(win)
  local wins = M.column_of(win)
  if not wins then
    return vim.api.nvim_win_get_height(win) >= 2 * MIN_STACKED + 1
  end
  return math.floor(column_height(wins) / (#units(wins) + 1)) >= MIN_STACKED
end

--- The threads stacked in a column share its height equally; an input takes at most a third of
--- its thread's share (and never more than sidebar.input_height).
local function fit_heights(wins)
  local groups = units(wins)
  local total = column_height(wins)
  local share, rest = math.floor(total / #groups), total % #groups
  local heights = {}
  for i, group in ipairs(groups) do
    local lines = share + (i <= rest and 1 or 0)
    if #group == 2 then
      local input = math.min(config.options.sidebar.input_height, math.max(1, math.floor((lines - 2) / 3)))
      table.insert(heights, { group[1], lines - 2 - input })
      table.insert(heights, { group[2], input })
    else
      table.insert(heights, { group[1], lines - 1 })
    end
  end
  -- Top to bottom: each change is taken from the windows below, the last one keeps the rest
  -- (the inputs' winfixheight, which keeps them from Neovim's own equalizing, is lifted meanwhile).
  local fixed = {}
  for _, w in ipairs(wins) do
    fixed[w] = vim.wo[w].winfixheight
    vim.wo[w].winfixheight = false
  end
  for i = 1, #heights - 1 do
    pcall(vim.api.nvim_win_set_height, heights[i][1], math.max(1, heights[i][2]))
  end
  for w, was in pairs(fixed) do
    vim.wo[w].winfixheight = was
  end
end

--- Sets the sidebar's columns to the widths the rule above gives, and each column's heights.
function M.fit()
  local sb = M.sidebar()
  if not sb then
    return
  end
  local n = #sb.columns
  local total = sidebar_width(n, sb.width, #sb.editor > 0)
  local each = column_width(n, total)
  local right = config.options.sidebar.side ~= "left"
  -- A width change is taken from (or given to) the next node to the right first: the right-hand
  -- sidebar starts at the editor's edge, the left-hand one at the screen's.
  local order = {}
  if right then
    if #sb.editor > 0 then
      local edge, now = sb.editor[#sb.editor], n - 1
      for _, wins in ipairs(sb.columns) do
        now = now + vim.api.nvim_win_get_width(wins[1])
      end
      pcall(vim.api.nvim_win_set_width, first_leaf(edge), math.max(1, node_width(edge) - (total - now)))
    end
    for i = 1, n - 1 do
      table.insert(order, sb.columns[i][1])
    end
  else
    for i = n, 1, -1 do
      table.insert(order, sb.columns[i][1])
    end
    if #sb.editor == 0 then
      table.remove(order)
    end
  end
  for _, w in ipairs(order) do
    pcall(vim.api.nvim_win_set_width, w, each)
  end
  for _, wins in ipairs(sb.columns) do
    if #wins > 1 then
      fit_heights(wins)
    end
  end
end

--- Windows showing the end of their buffer keep showing it after the layout changed (wrapping
--- differs with the width): the last line at the bottom.
function M.keep_ends()
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local buf = vim.api.nvim_win_get_buf(w)
    if is_thread_win(w) and vim.b[buf].tine_input and vim.b[buf].tine_input ~= buf then
      local last = vim.api.nvim_buf_line_count(buf)
      if vim.api.nvim_win_get_cursor(w)[1] >= last then
        pcall(vim.api.nvim_win_call, w, function()
          vim.cmd("normal! zb")
        end)
      end
    end
  end
end

--- The tab line when tine opens forks in tabs and you set none: each tab named after the thread
--- its window shows (`⑂ try a hash map`), as the default tab line names files.
function M.tabline()
  local parts = {}
  local current = vim.api.nvim_get_current_tabpage()
  for i, tab in ipairs(vim.api.nvim_list_tabpages()) do
    local win = vim.api.nvim_tabpage_get_win(tab)
    local buf = vim.api.nvim_win_get_buf(win)
    local display = vim.b[buf].tine_display or buf
    local name = vim.api.nvim_buf_get_name(display)
    local title = vim.b[buf].tine_thread and require("tine.names").label(name)
    local label = title or (name == "" and "[No Name]" or vim.fn.fnamemodify(name, ":t"))
    local wins = #vim.api.nvim_tabpage_list_wins(tab)
    local hl = tab == current and "%#TabLineSel#" or "%#TabLine#"
    local count = wins > 1 and (wins .. " ") or ""
    table.insert(parts, ("%s%%%dT %s%s "):format(hl, i, count, label:gsub("%%", "%%%%")))
  end
  return table.concat(parts) .. "%#TabLineFill#%T"
end

--- Names tabs after their threads, unless you set a tab line of your own.
function M.label_tabs()
  if vim.o.tabline == "" then
    vim.o.tabline = "%!v:lua.require'tine.layout'.tabline()"
  end
end

return M
