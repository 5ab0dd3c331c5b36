-- Signs in file buffers for the agents' hunks not reviewed yet (:help tine-review-signs): when a
-- file is read or entered, the host names the live threads' last turns that changed it with hunks
-- of it pending (review_file without a thread), and each changed line of those hunks, mapped onto
-- the buffer as it is now (review_map.lua), gets a sign. A hunk kept or undone (here, in a
-- thread's display, in :Tine review or through the API) loses its signs: the host says so
-- (host_api.review_changed). Only while the host runs (a buffer never starts it), and never with
-- `review_signs = false`.
local config = require("tine.config")
local host = require("tine.host")
local rmap = require("tine.review_map")

local M = {}

local ns = vim.api.nvim_create_namespace("tine_review_signs")
vim.api.nvim_set_hl(0, "TineReviewSign", { default = true, link = "DiagnosticHint" })

--- What each buffer was last drawn at (its changedtick), and the host's answer for its file: the
--- answer does not depend on the buffer's text (the hunks are mapped onto it here), so an edit
--- redraws from it, and only a thread coming to rest or a review asks the host again. A wiped
--- buffer's entries stay: buffer numbers are never reused, and the tables start over whenever a
--- thread comes to rest.
---@type table<integer, integer>
local asked = {}
---@type table<integer, table[]>
local answers = {}

--- The file a buffer holds (resolved), or nil for one that is not a file.
local function file_of(buf)
  if not vim.api.nvim_buf_is_loaded(buf) or vim.bo[buf].buftype ~= "" then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(buf)
  if name == "" or name:find("^%a[%w+.-]*://") then
    return nil
  end
  return vim.fn.resolve(vim.fn.fnamemodify(name, ":p"))
end

--- Draws `files` (the host's answer) as signs in `buf`.
local function draw(buf, files)
  vim.api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  local now = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local rows = {}
  for _, f in ipairs(files) do
    if type(f.after) == "string" and not f.binary then
      local after = rmap.lines(f.after)
      local map = rmap.mapper(after, now)
      local pending = vim.tbl_filter(function(h)
        return h.state == "pending"
      end, f.hunks)
      for i, regions in pairs(rmap.regions(type(f.before) == "string" and rmap.lines(f.before) or {}, after, pending)) do
        if #regions == 0 then
          -- Neovim's diff saw the hunk otherwise: its lines, context and all, are marked.
          local first, last = rmap.rows(pending[i], "new", map)
          for r = first, last do
            rows[r] = true
          end
        end
        for _, c in ipairs(regions) do
          for r = math.max(c[3], 1), math.max(c[3], 1) + math.max(c[4], 1) - 1 do
            rows[map(r)] = true
          end
        end
      end
    end
  end
  for r in pairs(rows) do
    pcall(vim.api.nvim_buf_set_extmark, buf, ns, r - 1, 0, { sign_text = "▍", sign_hl_group = "TineReviewSign", priority = 8 })
  end
end

--- Asks the host for `buf`'s pending hunks and draws them; `again`: even when asked at this changedtick.
---@param buf integer
---@param again? boolean
function M.refresh(buf, again)
  if config.options.review_signs == false or not host.running() then
    return
  end
  local path = file_of(buf)
  if not path then
    return
  end
  local tick = vim.api.nvim_buf_get_changedtick(buf)
  if not again and asked[buf] == tick then
    return
  end
  asked[buf] = tick
  local function drawn(files)
    local ok, e = pcall(draw, buf, files)
    if not ok then
      vim.notify("tine: the review's signs: " .. tostring(e), vim.log.levels.WARN)
    end
  end
  if not again and answers[buf] then
    return drawn(answers[buf])
  end
  host.request_async("review_file", { path }, function(err, files)
    if err or not vim.api.nvim_buf_is_valid(buf) then
      return
    end
    answers[buf] = files or {}
    drawn(answers[buf])
  end)
end

--- The host says a hunk of `path` was reviewed: the buffers holding it are drawn again.
---@param path string
function M.changed(path)
  local want = vim.fn.resolve(path)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if file_of(buf) == want then
      M.refresh(buf, true)
    end
  end
end

--- The status each thread was last pushed with: a turn ended when one comes to rest.
---@type table<string, string>
local statuses = {}
local drawing = false

--- The thread list changed (host_api.threads_pushed): when a thread came to rest (its turn may have
--- changed files), every buffer asks again, those shown at once. Pushes while threads work (a
--- tool call, a clock tick) ask nothing.
---@param mirrored { set: { id: string, status: string }[] }
function M.pushed(mirrored)
  local rested = false
  for _, t in ipairs(type(mirrored) == "table" and type(mirrored.set) == "table" and mirrored.set or {}) do
    if type(t) == "table" and t.id then
      local was = statuses[t.id]
      statuses[t.id] = t.status
      rested = rested or (was ~= nil and was ~= t.status and (t.status == "idle" or t.status == "exited"))
    end
  end
  if not rested or drawing or config.options.review_signs == false then
    return
  end
  asked = {}
  answers = {}
  drawing = true
  vim.defer_fn(function()
    drawing = false
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      M.refresh(vim.api.nvim_win_get_buf(win))
    end
  end, 50)
end

--- Begins the signs (the host started): a file read or entered asks for them, and the buffers
--- shown now are drawn.
function M.attach()
  if config.options.review_signs == false then
    return
  end
  local group = vim.api.nvim_create_augroup("tine.review_signs", { clear = true })
  vim.api.nvim_create_autocmd({ "BufReadPost", "BufEnter" }, {
    group = group,
    callback = function(a)
      M.refresh(a.buf, a.event == "BufReadPost")
    end,
  })
  vim.schedule(function()
    for _, win in ipairs(vim.api.nvim_list_wins()) do
      M.refresh(vim.api.nvim_win_get_buf(win))
    end
  end)
end

return M
