-- The keys of a :Tine compare view (compare.lua draws it): open, show a fork's files and a file's
-- hunks, mark, diff, promote, discard (asking as gD does) and graft (a file, or a hunk), each on
-- the fork (or file, or hunk) of the cursor's line, through require("tine"); the view redraws
-- after what changes its forks.
local config = require("tine.config")
local help = require("tine.help")
local util = require("tine.util")

local err, guarded = util.err, util.guarded

local M = {}

--- What the keys reach of one view (compare.lua gives it): its state as last drawn (`rows` says
--- what each line is), and what redraws it or asks the host again.
---@class TineCompareHandle
---@field state fun(): table the view's state (compare.lua's `views[buf]`), nil once it is gone
---@field draw fun() draws the view again as it stands
---@field refresh fun() asks the host for the view's forks again, then draws
---@field hunks_shown fun(id: string, path: string): boolean whether the file's hunks are shown (or asked for)
---@field hide_hunks fun(id: string, path: string) hides the file's hunks and draws
---@field load_hunks fun(id: string, path: string) asks the host for the file's hunks, then draws

--- The fork (and file) on the cursor's line of `view`.
local function here(view)
  local row = view and view.rows[vim.api.nvim_win_get_cursor(0)[1]]
  if not row then
    err("tine: no fork on this line")
  end
  return row
end

--- The fork `d` diffs the line's fork with: the marked one, else the next in the view.
local function other(state, id)
  if state.marked and state.marked ~= id then
    return state.marked
  end
  for i, f in ipairs(state.forks) do
    if f.id == id then
      local next = state.forks[i % #state.forks + 1]
      return next.id ~= id and next.id or nil
    end
  end
end

--- Maps the keys of view buffer `buf`; `view` is what compare.lua lets them reach of it.
---@param buf integer
---@param view TineCompareHandle
function M.map(buf, view)
  local km = config.options.keymaps
  local tine = require("tine")
  local task = "Compare the forks"
  local function map(lhs, fn, desc, opts)
    help.map(buf, "n", lhs, function()
      local state = view.state()
      local row = here(state)
      if row then
        fn(row, state)
      end
    end, desc, task, opts)
  end
  map(km.compare_open, function(row)
    guarded(tine.open, row.id)
  end, "open the fork")
  local function toggle(row, state)
    if not row.path then
      state.open[row.id] = not state.open[row.id]
      return view.draw()
    end
    if view.hunks_shown(row.id, row.path) then
      return view.hide_hunks(row.id, row.path)
    end
    local fork = vim.iter(state.forks):find(function(f)
      return f.id == row.id
    end)
    local change = fork and vim.iter(fork.changes):find(function(c)
      return c.path == row.path
    end)
    if change and change.status ~= "modified" then
      return err(
        ("tine: the fork %s %s: it has no hunks, %s grafts the whole file"):format(
          change.status == "added" and "made" or "deleted",
          row.path,
          km.compare_graft or "tine.graft()"
        )
      )
    end
    if change and util.null(change.added) then
      return err(("tine: %s is a binary file: it has no hunks"):format(row.path))
    end
    view.load_hunks(row.id, row.path)
  end
  map(km.compare_expand, toggle, "show or hide the fork's files (on a file: its hunks)")
  map("l", toggle, "show or hide the fork's files (on a file: its hunks)")
  map(km.compare_mark, function(row, state)
    state.marked = state.marked ~= row.id and row.id or nil
    view.draw()
  end, "mark the fork (d diffs against it)")
  map(km.compare_diff, function(row, state)
    local b = other(state, row.id)
    if not b then
      return err("tine: one fork only: nothing to diff it with")
    end
    tine.diff(row.id, b)
  end, "diff the fork with the marked one (else the next)")
  map(km.compare_promote, function(row)
    if guarded(tine.promote, row.id) then
      view.refresh()
    end
  end, "promote the fork into its source (the others stay)")
  --- Discards forks `ids` once the user says so (forks with messages of their own ask, as gD does).
  local function discard(ids)
    local ok, yes = guarded(tine.discard_confirmed, ids)
    if not ok or not yes then
      return
    end
    for _, id in ipairs(ids) do
      if not guarded(tine.discard, id) then
        break
      end
    end
    view.refresh()
  end
  map(km.compare_discard, function(row)
    discard({ row.id })
  end, "discard the fork")
  map(km.compare_discard_others, function(row, state)
    local others = vim.tbl_map(
      function(f)
        return f.id
      end,
      vim.tbl_filter(function(f)
        return f.id ~= row.id
      end, state.forks)
    )
    if #others == 0 then
      return err("tine: no other fork to discard")
    end
    discard(others)
  end, "discard every other fork")
  map(km.compare_graft, function(row)
    if not row.path then
      return err("tine: graft takes a file or a hunk: put the cursor on one of the fork's files (<Tab> shows them)")
    end
    if type(tine.graft) ~= "function" then
      return err("tine: graft is not available in this version of tine")
    end
    -- The host says what was grafted (and any conflict); the view redraws.
    if guarded(tine.graft, row.id, row.path, row.hunk) then
      view.refresh()
    end
  end, "graft the file's (or the hunk's) change into the source")
  help.map(buf, "n", "r", function()
    view.refresh()
  end, "redraw", task)
  help.map(buf, "n", "q", "<Cmd>close<CR>", "close the view", task)
  help.map(buf, "n", km.help, function()
    help.show(buf)
  end, "show these keys", task)
end

return M
