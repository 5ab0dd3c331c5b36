-- :Tine review (:help :Tine-review): a turn's changed files one at a time in Neovim's diff
-- mode, in a tab of its own: on the left the file as the turn found it (a scratch buffer, read
-- only), on the right the working file itself (edit it, write it). The review keys act on the
-- hunk under the cursor in either window; ]h [h go from hunk to hunk and on to the next or
-- previous file; ]f [f go from file to file; q (or closing a window or the tab) ends the review,
-- taking the tab away, so the user's own windows are as they were, and putting back any
-- buffer-local mapping of those keys the working file had (gitsigns' ]h, say).
-- Each hunk's state (pending, kept, undone) is the host's; review_draw.lua draws it.
local bar = require("tine.review_bar")
local draw = require("tine.review_draw")
local host = require("tine.host")
local rmap = require("tine.review_map")

local M = {}

local ns = draw.ns

--- The review open now (one at a time): its thread and turn, its tab and windows, the file shown.
---@type table?
local view = nil

local function notify(text, level)
  vim.notify(text, level or vim.log.levels.INFO)
end

--- The file's review asked of the host again (the states), then drawn.
local function refresh()
  if not view then
    return
  end
  local ok, got = pcall(host.request, "review_file", view.file.path, view.id, view.message)
  if ok and view and got[1] and vim.api.nvim_win_is_valid(view.left) and vim.api.nvim_win_is_valid(view.right) then
    view.file = got[1]
    draw.draw(view)
    for _, win in ipairs({ view.left, view.right }) do
      vim.api.nvim_win_call(win, function()
        vim.cmd("diffupdate")
      end)
    end
    -- Every refresh, not once: diffupdate folds the diff anew, the hunk just acted on with it.
    draw.in_sight(view, view.acted)
  end
end

local act, show_file

--- The cursor to hunk `i` of the file shown, in the window it is in (the right one when outside).
local function go_to(i)
  local win = vim.api.nvim_get_current_win()
  if win ~= view.left then
    win = view.right
    vim.api.nvim_set_current_win(win)
  end
  local row = draw.target(view, i, draw.side_of(view, win))
  local count = vim.api.nvim_buf_line_count(vim.api.nvim_win_get_buf(win))
  vim.api.nvim_win_set_cursor(win, { math.min(math.max(row, 1), count), 0 })
  vim.cmd("normal! zv")
end

--- The next (`step` 1) or previous (-1) hunk: past the file's last, the next file's first.
local function jump(step)
  draw.fresh(view)
  local win = vim.api.nvim_get_current_win()
  local side, row = draw.side_of(view, win), vim.api.nvim_win_get_cursor(win)[1]
  local hunks = view.file.hunks
  local from, to = step > 0 and 1 or #hunks, step > 0 and #hunks or 1
  for i = from, to, step do
    local r = draw.target(view, i, side)
    if (step > 0 and r > row) or (step < 0 and r < row) then
      return go_to(i)
    end
  end
  local next_file = view.at + step
  if next_file < 1 or next_file > #view.files then
    return notify(("tine: the turn's %s hunk"):format(step > 0 and "last" or "first"))
  end
  if show_file(next_file) then
    go_to(step > 0 and 1 or #view.file.hunks)
  end
end

--- Runs key `what` of the review; false: the key is Vim's own here (off a hunk).
act = function(what)
  if not view then
    return false
  end
  if what == "next" or what == "prev" then
    jump(what == "next" and 1 or -1)
    return true
  end
  if what == "next_file" or what == "prev_file" then
    local i = view.at + (what == "next_file" and 1 or -1)
    if i < 1 or i > #view.files then
      notify(("tine: the turn's %s file"):format(what == "next_file" and "last" or "first"))
    elseif show_file(i) then
      go_to(1)
    end
    return true
  end
  if what == "quit" then
    M.close()
    return true
  end
  if what == "help" then
    bar.help()
    return true
  end
  local win = vim.api.nvim_get_current_win()
  local i = (win == view.left or win == view.right) and draw.hunk_at(view, win) or nil
  if not i then
    return false
  end
  local h, tine = view.file.hunks[i], require("tine")
  view.acted = i
  local function done(ok, e)
    if not ok then
      notify(tostring(e), vim.log.levels.ERROR)
    end
    -- After the host's reload of an undone file (file_written, scheduled before this).
    vim.schedule(refresh)
  end
  if what == "keep" then
    done(pcall(tine.keep_hunk, view.id, h.path, h.index, view.message))
  elseif what == "undo" then
    done(pcall(tine.reject_hunk, view.id, h.path, h.index, view.message))
  else
    local id, message = view.id, view.message
    vim.ui.input({ prompt = ("Comment on hunk %d of %s: "):format(h.index, h.path) }, function(text)
      if text and vim.trim(text) ~= "" then
        done(pcall(tine.comment_hunk, id, h.path, h.index, text, message))
      end
    end)
  end
  return true
end

--- The review's keys on `buf`; on the working file, its own buffer-local mappings of those keys are
--- kept to be put back (`saved`).
local function map_keys(buf, saved)
  for _, k in ipairs(bar.keys()) do
    local lhs, what = k[1], k[2]
    if lhs and lhs ~= "" then
      if saved then
        local was = vim.api.nvim_buf_call(buf, function()
          return vim.fn.maparg(lhs, "n", false, true)
        end)
        if was.buffer == 1 then
          table.insert(saved, was)
        end
      end
      vim.keymap.set("n", lhs, function()
        if not act(what) then
          local count = vim.v.count > 0 and tostring(vim.v.count) or ""
          vim.api.nvim_feedkeys(count .. vim.api.nvim_replace_termcodes(lhs, true, false, true), "n", false)
        end
      end, { buffer = buf, nowait = true, silent = true, desc = "tine review: " .. k[3] })
    end
  end
end

--- The working file's buffer as it was before the review: the review's keys and marks gone, its own mappings back.
local function let_go(v)
  local buf = v.right_buf
  if not buf or v.gone or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  for _, k in ipairs(bar.keys()) do
    if k[1] and k[1] ~= "" then
      pcall(vim.keymap.del, "n", k[1], { buffer = buf })
    end
  end
  vim.api.nvim_buf_call(buf, function()
    for _, was in ipairs(v.saved or {}) do
      vim.fn.mapset("n", false, was)
    end
  end)
end

--- Shows file `i` of the turn (`known`: its review, when the host was just asked for it); false
--- (and says why) when it cannot.
show_file = function(i, known)
  local v = view
  local path = v.files[i]
  local f = known
  if not f then
    local ok, got = pcall(host.request, "review_file", path, v.id, v.message)
    if not ok then
      notify(tostring(got), vim.log.levels.ERROR)
      return false
    end
    f = got[1]
  end
  local abs = f.root .. "/" .. path
  let_go(v)
  local gone = vim.uv.fs_stat(abs) == nil
  if gone then
    vim.api.nvim_win_set_buf(v.right, draw.scratch({}, ("tine://review/%s (gone)"):format(path), path))
  else
    local was = vim.fn.bufnr(abs)
    local loaded = was ~= -1 and vim.api.nvim_buf_is_loaded(was)
    local edited, e = pcall(vim.api.nvim_win_call, v.right, function()
      vim.cmd("edit " .. vim.fn.fnameescape(abs))
    end)
    if not edited then
      notify(("tine: review: %s cannot be shown: %s"):format(path, tostring(e)), vim.log.levels.ERROR)
      return false
    end
    if not loaded then
      v.loaded[vim.api.nvim_win_get_buf(v.right)] = true
    end
  end
  v.at, v.file, v.gone, v.acted = i, f, gone, nil
  v.before = type(f.before) == "string" and rmap.lines(f.before) or {}
  v.after = type(f.after) == "string" and rmap.lines(f.after) or {}
  v.right_buf = vim.api.nvim_win_get_buf(v.right)
  v.left_buf = draw.scratch(v.before, ("tine://review/%s (before the turn)"):format(path), path)
  vim.api.nvim_win_set_buf(v.left, v.left_buf)
  v.saved = {}
  map_keys(v.left_buf, nil)
  map_keys(v.right_buf, not gone and v.saved or nil)
  for _, win in ipairs({ v.left, v.right }) do
    vim.api.nvim_win_call(win, function()
      vim.cmd("diffthis")
    end)
  end
  draw.draw(v)
  return true
end

--- Ends the review: its tab goes (the user's tab and window come back), the working file's
--- buffer is as it was, and a file buffer the review loaded, unchanged and shown nowhere, goes.
function M.close()
  local v = view
  if not v then
    return
  end
  view = nil
  pcall(vim.api.nvim_del_augroup_by_name, "tine.review")
  let_go(v)
  if vim.api.nvim_tabpage_is_valid(v.tab) then
    if #vim.api.nvim_list_tabpages() > 1 then
      local ok, e = pcall(vim.cmd, "tabclose " .. vim.api.nvim_tabpage_get_number(v.tab))
      if not ok then
        notify(("tine: the review's tab stays: %s"):format(tostring(e)), vim.log.levels.WARN)
      end
    else
      -- The review's tab is the only one: the working file stays, alone, out of diff mode.
      for _, win in ipairs({ v.left, v.right }) do
        if vim.api.nvim_win_is_valid(win) then
          vim.api.nvim_win_call(win, function()
            vim.cmd("diffoff")
            vim.wo.winbar = ""
          end)
        end
      end
      if vim.api.nvim_win_is_valid(v.left) and #vim.api.nvim_tabpage_list_wins(0) > 1 then
        vim.api.nvim_win_close(v.left, true)
      end
    end
  end
  if vim.api.nvim_win_is_valid(v.origin) then
    vim.api.nvim_set_current_win(v.origin)
  end
  for buf in pairs(v.loaded) do
    if vim.api.nvim_buf_is_valid(buf) and not vim.bo[buf].modified and #vim.fn.win_findbuf(buf) == 0 then
      pcall(vim.api.nvim_buf_delete, buf, {})
    end
  end
end

--- The thread to review: the one whose buffer this is, else the active one; and in its display, the
--- turn of the message under the cursor.
local function here()
  local id = vim.b.tine_thread
  if id == nil then
    return require("tine").current(), nil
  end
  if require("tine.names").is_input(0) then
    return id, nil
  end
  local ok, at = pcall(host.request, "locate", id, vim.api.nvim_win_get_cursor(0)[1] - 1)
  return id, ok and type(at) == "table" and at.message or nil
end

--- Opens the review of thread `id`'s turn at `at_message` (nil: its last turn that changed files);
--- without `id`, the thread here. Raises when there is nothing to review.
---@param id? string
---@param at_message? integer
function M.open(id, at_message)
  local tine = require("tine")
  local hunks
  if id == nil then
    local located
    id, located = here()
    if id == nil or id == vim.NIL then
      error("tine: review: no thread is active (:Tine opens one)", 0)
    end
    -- The turn of the message under the cursor, else (no turn ends after it) the thread's last.
    if at_message == nil and located ~= nil then
      local ok, got = pcall(tine.hunks, id, located)
      if ok then
        at_message, hunks = located, got
      end
    end
  end
  hunks = hunks or tine.hunks(id, at_message)
  local files, seen = {}, {}
  for _, h in ipairs(hunks) do
    if not seen[h.path] then
      seen[h.path] = true
      table.insert(files, h.path)
    end
  end
  if #files == 0 then
    error("tine: review: the turn changed only binary files: there is no hunk to review", 0)
  end
  local first = host.request("review_file", files[1], id, at_message)[1]
  -- Started on the file the user is in, when the turn changed it.
  local start, here_path = 1, vim.api.nvim_buf_get_name(0)
  for i, p in ipairs(files) do
    if here_path ~= "" and vim.fn.resolve(here_path) == vim.fn.resolve(first.root .. "/" .. p) then
      start = i
    end
  end
  M.close()
  local origin = vim.api.nvim_get_current_win()
  vim.cmd("tabnew")
  local empty = vim.api.nvim_get_current_buf()
  vim.bo[empty].bufhidden = "wipe"
  local right = vim.api.nvim_get_current_win()
  vim.cmd("leftabove vnew")
  vim.bo.bufhidden = "wipe"
  local left = vim.api.nvim_get_current_win()
  view = { id = id, message = first.message, files = files, tab = vim.api.nvim_get_current_tabpage() }
  view.left, view.right, view.origin, view.loaded = left, right, origin, {}
  vim.api.nvim_set_current_win(right)
  local group = vim.api.nvim_create_augroup("tine.review", { clear = true })
  vim.api.nvim_create_autocmd("WinClosed", {
    group = group,
    pattern = { tostring(left), tostring(right) },
    callback = function()
      vim.schedule(M.close)
    end,
  })
  if not show_file(start, start == 1 and first or nil) then
    M.close()
    return
  end
  go_to(1)
end

--- The host says a hunk of `path` was reviewed (host_api.review_changed): the review showing it draws it again.
---@param path string
function M.changed(path)
  if view and vim.fn.resolve(path) == vim.fn.resolve(view.file.root .. "/" .. view.file.path) then
    refresh()
  end
end

--- The review open now, for tests and statuslines: { id, message, file, at, files } or nil.
function M.current()
  return view and { id = view.id, message = view.message, file = view.file.path, at = view.at, files = view.files } or nil
end

return M
