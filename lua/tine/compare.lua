-- :Tine compare: a fan-out's forks side by side in a scratch buffer below, one line per fork (its
-- title, state, files changed, lines added and removed, its check's verdict, cost and cache reads),
-- a fork's line opened to its files with <Tab>, a file's line to its hunks (the host numbers them as
-- graft does: graft_hunks). Its keys (open, diff, promote, discard, graft) are compare_keys.lua's;
-- the view redraws when the host pushes a change of one of its forks (a state, a check:
-- threads_pushed). A tab has one compare window, sized to what it shows.
local host = require("tine.host")
local util = require("tine.util")

local err, guarded = util.err, util.guarded

local M = {}

M.NAME = "tine-compare://"

--- Per view buffer: `fanout` (what it asks the host for), `forks` (as last drawn), `rows` (line ->
--- { id, path?, hunk? }), `open` (forks shown with their files), `hunks` (files shown with their
--- hunks, by `hunk_key`: the hunks as the host last gave them, false while asked for), `marked`
--- (the fork `d` diffs against). `status`: each fork's status as last pushed.
---@alias TineCompareRow { id: string, path?: string, hunk?: integer }
---@type table<integer, { fanout: string, forks: TineComparedFork[], rows: table<integer, TineCompareRow>, open: table<string, boolean>, hunks: table<string, TineGraftHunk[]|false>, marked?: string, status: table<string, string> }>
local views = {}

--- Times a view was drawn (tests wait for the next one).
M.drawn = 0

--- Pushes seen (`pushed`): one that came while a view was being opened redraws it once open.
local pushes = 0

local function num(v)
  return (v ~= nil and v ~= vim.NIL) and v or nil
end

--- `12.3k` for a count of tokens.
local function tokens(n)
  return n >= 1000 and ("%.1fk"):format(n / 1000) or tostring(n)
end

--- A fork's line: title, state, files, +/−, check, model, cost and cache reads. The model is shown
--- always, not only for a fan-out with `models`: the cost beside it means little without it.
---@param f TineComparedFork
function M.fork_line(f)
  local cost = num(f.cost_usd)
  return ("#%d %s  %s  %d file%s +%d −%d  check %s  %s%s  cache %s"):format(
    f.num,
    f.title,
    f.state,
    #f.files,
    #f.files == 1 and "" or "s",
    f.added,
    f.removed,
    f.verdict,
    num(f.model) and (f.model .. "  ") or "",
    cost and ("$%.4f"):format(cost) or "$?",
    tokens(f.cache_read)
  )
end

--- A file of a fork, as `view.hunks` keys it.
local function hunk_key(id, path)
  return id .. "\0" .. path
end

local function draw(buf)
  local view = views[buf]
  if not view or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local lines, rows = {}, {}
  for _, f in ipairs(view.forks) do
    local mark = view.marked == f.id and "*" or " "
    table.insert(lines, ("%s%s %s"):format(mark, view.open[f.id] and "▾" or "▸", M.fork_line(f)))
    rows[#lines] = { id = f.id }
    if view.open[f.id] then
      for _, c in ipairs(f.changes) do
        local status = ({ added = "A", modified = "M", deleted = "D" })[c.status] or "?"
        local added, removed = num(c.added), num(c.removed)
        local counts = added and ("+%d −%d"):format(added, removed or 0) or "binary"
        local hunks = view.hunks[hunk_key(f.id, c.path)]
        table.insert(lines, ("    %s %s %s  %s"):format(hunks == nil and " " or "▾", status, c.path, counts))
        rows[#lines] = { id = f.id, path = c.path }
        for i, h in ipairs(hunks or {}) do
          -- Numbered as graft numbers them (tine.graft's third argument).
          table.insert(lines, ("          hunk %d %s  +%d −%d"):format(i, h.header, h.added, h.removed))
          rows[#lines] = { id = f.id, path = c.path, hunk = i }
        end
      end
      if f.check ~= nil and f.check ~= vim.NIL and not f.check.ok and f.check.output ~= "" then
        local tail = vim.split(f.check.output, "\n", { trimempty = true })
        table.insert(lines, "      check: " .. (tail[#tail] or ""))
        rows[#lines] = { id = f.id }
      end
    end
  end
  if #lines == 0 then
    lines = { "(no fork of this fan-out is left)" }
  end
  view.rows = rows
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  -- Its window fits what it shows (a fork's files opened with <Tab> too), up to half the editor.
  for _, win in ipairs(vim.fn.win_findbuf(buf)) do
    if #vim.api.nvim_tabpage_list_wins(vim.api.nvim_win_get_tabpage(win)) > 1 then
      vim.api.nvim_win_set_height(win, math.max(1, math.min(#lines, math.floor(vim.o.lines / 2))))
    end
  end
  M.drawn = M.drawn + 1
end

--- Asks the host for the hunks of fork `id`'s file `path` and draws them (off Neovim's loop).
local function load_hunks(buf, id, path)
  local key = hunk_key(id, path)
  views[buf].hunks[key] = views[buf].hunks[key] or false
  host.request_async("graft_hunks", { id, path }, function(e, hunks)
    local view = views[buf]
    if not view or view.hunks[key] == nil then
      return
    end
    if e then
      view.hunks[key] = nil
      err(e)
    else
      view.hunks[key] = hunks
    end
    draw(buf)
  end)
end

--- Asks the host for the view's forks again and draws them (off Neovim's loop: nothing waits);
--- the hunks of the files shown with theirs are asked for again (the fork may have worked on).
---@param buf integer
function M.refresh(buf)
  local view = views[buf]
  if not view then
    return
  end
  -- Answers can come out of order (a done fork's compare is quick, a working one's takes a
  -- snapshot): one asked before another that was already drawn is older and is dropped.
  view.asked = (view.asked or 0) + 1
  local asked = view.asked
  host.request_async("compare", { view.fanout }, function(e, forks)
    view = views[buf]
    if not view or asked < (view.drawn_answer or 0) then
      return
    end
    view.drawn_answer = asked
    -- Every fork gone (promoted, discarded): the view says so.
    view.forks = e and {} or forks
    local shown = view.hunks
    view.hunks = {}
    for _, f in ipairs(view.forks) do
      for _, c in ipairs(f.changes) do
        if shown[hunk_key(f.id, c.path)] ~= nil then
          load_hunks(buf, f.id, c.path)
        end
      end
    end
    draw(buf)
  end)
end

--- Whether a pushed entry of fork `f` can change its line: its status changed (a turn started or
--- ended, an approval asked), or it is at rest and not done yet (its check ends with such a push).
--- A streamed reply's pushes change nothing here: the view does not ask the host for each.
local function moves(view, f, info)
  local before = view.status[f.id]
  view.status[f.id] = info.status
  local at_rest = f.state == "done" or f.state == "interrupted"
  return before ~= info.status or (not at_rest and (info.status == "idle" or info.status == "error"))
end

--- Redraws the views one of whose forks the host pushed a change of (or that lost one).
---@param mirrored { set: { id: string, status: string }[], order: any }
function M.pushed(mirrored)
  pushes = pushes + 1
  for buf, view in pairs(views) do
    local hit = mirrored.order ~= nil and mirrored.order ~= vim.NIL
    for _, info in ipairs(mirrored.set) do
      for _, f in ipairs(view.forks) do
        if f.id == info.id and moves(view, f, info) then
          hit = true
        end
      end
    end
    if hit then
      M.refresh(buf)
    end
  end
end

--- A file changed in fork `id`'s worktree while it was at rest (the host watches it): the views showing it ask again.
---@param id string
function M.files_changed(id)
  for buf, view in pairs(views) do
    for _, f in ipairs(view.forks) do
      if f.id == id then
        M.refresh(buf)
        break
      end
    end
  end
end

--- The window of this tab showing a compare view, if one does.
local function view_window()
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if views[vim.api.nvim_win_get_buf(win)] then
      return win
    end
  end
end

--- A scratch buffer named `name` in the tab's compare window (the view there is wiped), else in a
--- new window below.
local function view_buffer(name, win)
  if not win then
    return require("tine.ui").scratch_below({ "" }, 1, name)
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "wipe"
  vim.api.nvim_set_current_win(win)
  vim.api.nvim_win_set_buf(win, buf)
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

--- :Tine compare: the forks of the fan-out `ask` stands for (a fork of it, its source), or of the thread here.
---@param ask? string|string[]
function M.open(ask)
  -- The view redraws on the host's pushes of the thread list, which the host sends once Neovim
  -- has asked for that list (threads_mirror.lua); ask first, so that none is missed after compare().
  if not guarded(require("tine").threads) then
    return
  end
  local seen = pushes
  local ok, forks = guarded(require("tine").compare, ask)
  if not ok then
    return
  end
  local fanout = forks[1] and forks[1].fanout
  if not fanout then
    return err("tine: no fork to compare")
  end
  local name = M.NAME .. fanout
  local win = view_window()
  -- This fan-out's view elsewhere goes (one in this tab's window is wiped as it is replaced).
  local old = vim.fn.bufnr(name)
  if old ~= -1 and not (win and vim.api.nvim_win_get_buf(win) == old) then
    pcall(vim.api.nvim_buf_delete, old, { force = true })
  end
  local buf = view_buffer(name, win)
  vim.bo[buf].filetype = "tine-compare"
  views[buf] = { fanout = fanout, forks = forks, rows = {}, open = {}, hunks = {}, status = {} }
  vim.api.nvim_create_autocmd("BufWipeout", {
    buffer = buf,
    callback = function()
      views[buf] = nil
    end,
  })
  require("tine.compare_keys").map(buf, {
    state = function()
      return views[buf]
    end,
    draw = function()
      draw(buf)
    end,
    refresh = function()
      M.refresh(buf)
    end,
    hunks_shown = function(id, path)
      return views[buf].hunks[hunk_key(id, path)] ~= nil
    end,
    hide_hunks = function(id, path)
      views[buf].hunks[hunk_key(id, path)] = nil
      draw(buf)
    end,
    load_hunks = function(id, path)
      load_hunks(buf, id, path)
    end,
  })
  draw(buf)
  -- A push that came while compare() was asked may be newer than what it answered.
  if pushes ~= seen then
    M.refresh(buf)
  end
  return buf
end

return M
