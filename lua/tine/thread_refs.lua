-- Threads named on the command line (`:Tine diff [a [b]]`): completed as `N  title`, so <Tab> shows
-- which thread a number is, and read back with or without the title. A title is only what its
-- completion wrote after the number: a number followed by anything else is the next thread.
local host = require("tine.host")
local tine = require("tine")

local M = {}

--- A title as one line of words: a title's runs of spaces (or other blanks) read as one.
---@param text string
---@return string
local function words(text)
  return vim.trim((text:gsub("%s+", " ")))
end

--- This project's threads by number, or nil while no host runs (a completion never starts one).
---@param start boolean start the host to know them
---@return table<integer, string>? titles by number
local function titles(start)
  if not start and not host.running() then
    return nil
  end
  local ok, threads = pcall(tine.threads)
  if not ok then
    return nil
  end
  local out = {}
  for _, t in ipairs(threads) do
    out[t.num] = words(t.title)
  end
  return out
end

--- The threads `text` names: each word a thread's number or id, a number maybe followed by its
--- title as completed (`3  try a hash map 5`: threads 3 and 5).
---@param text string
---@param known table<integer, string>? titles by number
---@return string[]
local function read(text, known)
  local refs = {}
  local rest = words(text)
  while rest ~= "" do
    local ref, after = rest:match("^(%S+)%s*(.*)$")
    table.insert(refs, ref)
    local title = known and tonumber(ref) and known[tonumber(ref)]
    if title and title ~= "" and (after == title or after:sub(1, #title + 1) == title .. " ") then
      after = after:sub(#title + 2)
    end
    rest = after
  end
  return refs
end

--- The threads named by a command's arguments (`:Tine diff`'s text after `diff`).
---@param text string
---@return string[]
function M.parse(text)
  return read(text, words(text) ~= "" and titles(true) or nil)
end

--- `:Tine diff <Tab>`: `N  title` of each of this project's threads whose number starts with
--- `lead`, or whose title holds it; nothing once `before` (the arguments before `lead`) names `max` threads.
---@param before string
---@param lead string
---@param max integer
---@return string[]
function M.complete(before, lead, max)
  local known = titles(false)
  if not known or #read(before, known) >= max then
    return {}
  end
  local nums = {}
  for num, title in pairs(known) do
    if tostring(num):find(lead, 1, true) == 1 or title:lower():find(lead:lower(), 1, true) then
      table.insert(nums, num)
    end
  end
  table.sort(nums)
  return vim.tbl_map(function(num)
    return ("%d  %s"):format(num, known[num])
  end, nums)
end

return M
