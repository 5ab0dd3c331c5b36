-- The keys of :Tine review and its winbars (review.lua runs the review). The working file's winbar
-- says, first, the thread (as the thread list names it, `#3 title`), the file and its place in the
-- turn and how many of its hunks are reviewed; the key hints follow only when they fit the
-- window, else `g? keys` (the help key lists them all), so nothing of the first part is ever cut.
-- The winbar is worked out as Neovim draws it (the window's width now, a resize too).
local config = require("tine.config")

local M = {}

--- The keys of the review, each with what it does: the configured lhs, the action, a
--- description, and the word the winbar's hints give it (nil: not among the hints).
---@return { [1]: string|false|nil, [2]: string, [3]: string, [4]: string? }[]
function M.keys()
  local km = config.options.keymaps
  return {
    { km.next_hunk, "next", "the next hunk (then the next file's)", "hunk" },
    { km.prev_hunk, "prev", "the previous hunk (then the previous file's)" },
    { km.review_keep, "keep", "keep the hunk under the cursor (✓ reviewed)", "keep" },
    { km.review_undo, "undo", "undo the hunk under the cursor in the working file (↶)", "undo" },
    { km.review_comment, "comment", "comment on the hunk under the cursor (the model is told)", "comment" },
    { km.review_next_file, "next_file", "the turn's next file", "file" },
    { km.review_prev_file, "prev_file", "the turn's previous file" },
    { km.review_quit, "quit", "end the review (its tab closes)", "quit" },
    { km.help, "help", "show these keys" },
  }
end

local function mapped(k)
  return k[1] and k[1] ~= ""
end

--- `g?`: the review's keys, each with what it does.
function M.help()
  local lines = { "tine review keys:" }
  for _, k in ipairs(M.keys()) do
    if mapped(k) then
      table.insert(lines, ("  %-6s %s"):format(k[1], k[3]))
    end
  end
  vim.notify(table.concat(lines, "\n"), vim.log.levels.INFO)
end

--- The thread as the thread list names it: `#3 title`, or its id when the list does not have it.
local function thread_label(id)
  for _, t in ipairs(require("tine").threads()) do
    if t.id == id then
      return ("#%d %s"):format(t.num, t.title)
    end
  end
  return id
end

local width = vim.fn.strdisplaywidth

--- `text` cut to `room` display cells, ending in `…` when cut.
local function cut(text, room)
  if width(text) <= room then
    return text
  end
  local chars = vim.fn.strchars(text)
  while chars > 0 and width(vim.fn.strcharpart(text, 0, chars)) > room - 1 do
    chars = chars - 1
  end
  return (vim.fn.strcharpart(text, 0, chars):gsub("%s+$", "")) .. "…"
end

--- The working file's winbar for a window `cells` wide: what `v` (the review) shows, its hints if they fit.
---@param bar { thread: string, file: string, at: integer, files: integer, reviewed: integer, hunks: integer }
---@param cells integer
---@return string
function M.text(bar, cells)
  local place = ("%s (%d/%d)  %d/%d hunks reviewed"):format(bar.file, bar.at, bar.files, bar.reviewed, bar.hunks)
  -- The thread's title gives way first, then the words: the number, the file and the counts stay.
  local number = bar.thread:match("^#%d+") or bar.thread
  local room = cells - width("review of : " .. place)
  local first = ("%s %s (%d/%d)  %d/%d reviewed"):format(number, bar.file, bar.at, bar.files, bar.reviewed, bar.hunks)
  if room >= width(bar.thread) then
    first = ("review of %s: %s"):format(bar.thread, place)
  elseif room > width(number) + 2 then
    first = ("review of %s: %s"):format(cut(bar.thread, room), place)
  elseif room >= width(number) then
    first = ("review of %s: %s"):format(number, place)
  end
  local hints = vim
    .iter(M.keys())
    :filter(function(k)
      return mapped(k) and k[4] ~= nil
    end)
    :map(function(k)
      return k[1] .. " " .. k[4]
    end)
    :join("  ")
  local help = config.options.keymaps.help
  local short = help and help ~= "" and (help .. " keys") or ""
  for _, tail in ipairs({ hints .. (short ~= "" and "  " .. short or ""), short }) do
    if tail ~= "" and width(first) + 4 + width(tail) <= cells then
      return first .. "    " .. tail
    end
  end
  return first
end

--- Sets the review's winbars: the working file's from `bar` (the thread named here), worked out
--- when drawn; the other's names the file before the turn.
---@param v table the review (review.lua)
---@param bar { file: string, at: integer, files: integer, reviewed: integer, hunks: integer }
function M.set(v, bar)
  bar.thread = v.thread_label or thread_label(v.id)
  v.thread_label = bar.thread
  vim.w[v.right].tine_review_bar = bar
  vim.wo[v.right].winbar = "%{%v:lua.require'tine.review_bar'.drawn()%}"
  vim.wo[v.left].winbar = ("before the turn: %s"):format(bar.file):gsub("%%", "%%%%")
end

--- The winbar of the window Neovim draws it for (a `%{}` item runs with that window current).
function M.drawn()
  local win = vim.api.nvim_get_current_win()
  local ok, bar = pcall(function()
    return vim.w[win].tine_review_bar
  end)
  if not ok or type(bar) ~= "table" then
    return ""
  end
  return (M.text(bar, vim.api.nvim_win_get_width(win)):gsub("%%", "%%%%"))
end

return M
