-- Completion of mentions (`@file:<path>`, `@diag`, …) in a thread's input: the input buffer's
-- omnifunc, so <C-x><C-o> lists them and the omnifunc sources of nvim-cmp and blink.cmp offer
-- them; and the same for `:Tine ask` on the command line. What is offered is the host's to say
-- (node/context/complete.ts); this file asks it and hands the answer to Neovim.
local host = require("tine.host")
local util = require("tine.util")

local M = {}

--- The host's answer to the first of the two calls Neovim makes (findstart, then the items), kept
--- for the second: one request per completion.
---@type { prefix: string, base: string, items: table[] }?
local last = nil

--- What completes the mention at the end of `before`; nil when none is being typed there.
---@param before string the line up to the cursor
---@param message_start boolean the line is the message's first (an `@`-command may start it)
---@param buf integer? the input buffer (its thread's agent may take `/` commands)
---@return { start: integer, items: table[] }?
local function ask_host(before, message_start, buf)
  local ok, result = pcall(host.request, "complete_mention", before, message_start, buf)
  if not ok then
    util.err(result)
    return nil
  end
  return result
end

---@param result { start: integer, items: { word: string, menu: string, info: string, kind: string }[] }
---@return table[] complete-items
local function complete_items(result)
  return vim.tbl_map(function(item)
    return {
      word = item.word,
      menu = item.menu ~= "" and item.menu or nil,
      info = item.info ~= "" and item.info or nil,
      kind = item.kind,
      icase = 1,
      -- The host matched fuzzily and ranked: Neovim must not cut the list to words that start
      -- with what is typed.
      equal = 1,
    }
  end, result.items)
end

--- Remembers the host's answer for `before`; returns the column the completed word starts at.
---@param before string
---@return integer
local function find_start(before)
  local result = ask_host(before, vim.api.nvim_win_get_cursor(0)[1] == 1, vim.api.nvim_get_current_buf())
  if not result then
    last = nil
    return -3 -- no mention here: leave completion quietly
  end
  last = { prefix = before:sub(1, result.start), base = before:sub(result.start + 1), items = complete_items(result) }
  return result.start
end

--- The input's omnifunc (`:help complete-functions`).
---@param findstart integer
---@param base string
---@return integer|table
function M.omnifunc(findstart, base)
  if findstart == 1 then
    local col = vim.api.nvim_win_get_cursor(0)[2]
    return find_start(vim.api.nvim_get_current_line():sub(1, col))
  end
  if not last then
    return {}
  end
  -- A completion plugin may pass a base of its own: the host is asked for that one.
  if base ~= last.base and find_start(last.prefix .. base) < 0 then
    return {}
  end
  local items = last and last.items or {}
  -- Called by Neovim itself (no Lua code below this call): the host is asked again on each key
  -- typed, so the list follows the fuzzy match. A plugin calling from Lua (cmp-omni reads a
  -- plain list only) gets the list, and filters as it types by itself.
  if debug.getinfo(2, "S") == nil then
    return { words = items, refresh = "always" }
  end
  return items
end

--- Makes `buf` (a thread's input) complete mentions; the host lists the project's files again
--- (in the background) each time Insert mode begins there, so the list is fresh when `@file:` is typed.
---@param buf integer
function M.attach(buf)
  vim.bo[buf].omnifunc = "v:lua.require'tine.complete'.omnifunc"
  vim.api.nvim_create_autocmd("InsertEnter", {
    buffer = buf,
    group = vim.api.nvim_create_augroup("tine.complete." .. buf, { clear = true }),
    callback = function()
      if host.running() then
        pcall(host.request, "complete_prepare")
      end
    end,
  })
end

--- `:Tine ask …@file:no<Tab>`: the mention being typed in the command line, completed.
---@param lead string the argument being completed
---@return string[]
function M.cmdline(lead)
  local result = ask_host(lead, true)
  if not result then
    return {}
  end
  local prefix = lead:sub(1, result.start)
  return vim.tbl_map(function(item)
    return prefix .. item.word
  end, result.items)
end

return M
