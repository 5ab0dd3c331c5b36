-- Ending a fork by the user's hand (:Tine fork discard|promote|report, the fork keys, the list's
-- and :Tine compare's keys): a discard that would lose messages of the fork's own asks first, and
-- the fork's windows may close as it ends (ui.user_ends). The ends themselves are the host's,
-- asked through the public API (init.lua: discard, promote, report).
local host = require("tine.host")
local ui = require("tine.ui")
local util = require("tine.util")

local err, guarded, shown = util.err, util.guarded, util.shown

local M = {}

--- Whether forks `ids` may be discarded: forks with messages of their own (after their fork point)
--- ask first, as a keypress in the wrong column must not lose a conversation (default: Cancel);
--- forks without go at once. gD and :Tine compare's D and X ask through here.
---@param ids string|string[]
---@return boolean
function M.discard_confirmed(ids)
  ids = type(ids) == "table" and ids or { ids }
  local threads = require("tine").threads()
  local asked, own = {}, 0
  for _, id in ipairs(ids) do
    local lineage = host.request("lineage", id)
    local info = vim.iter(threads):find(function(t)
      return t.id == id
    end)
    -- Not a fork (the host says so), or gone: nothing of its own to lose.
    local mine = (lineage and info) and info.messages - (lineage.at_message + 1) or 0
    if mine > 0 then
      own = own + mine
      table.insert(asked, ('#%d "%s"'):format(info.num, info.title))
    end
  end
  if own == 0 then
    return true
  end
  local question = #asked == 1
      and ("tine: discard fork %s? It has %d message%s of its own (`:Tine threads!` brings it back)."):format(
        asked[1],
        own,
        own == 1 and "" or "s"
      )
    or ("tine: discard forks %s? They have %d messages of their own (`:Tine threads!` brings them back)."):format(
      table.concat(asked, ", "),
      own
    )
  return vim.fn.confirm(question, "&Discard\n&Cancel", 2) == 1
end

--- :Tine fork discard|promote|report [text], and the fork keys: ends the fork here (or `id`).
--- A discard of a fork with messages of its own asks first. A failure is reported.
---@param action "discard"|"promote"|"report"
---@param id? string default: the thread in the current buffer, else the active one
---@param text? string the report (without it, the fork is asked for one)
function M.fork_end(action, id, text)
  local tine = require("tine")
  -- How a fork ends, by name.
  local fork_ends = { discard = tine.discard, promote = tine.promote, report = tine.report }
  local finish = type(action) == "string" and fork_ends[action]
  if not finish then
    return err(('tine: fork_end: action must be "discard", "promote" or "report" (got %s)'):format(shown(action)))
  end
  id = id or vim.b.tine_thread or tine.current()
  if not id then
    return err("tine: no fork here")
  end
  -- A wrong id is the host's to refuse, named as the discard's (nothing to ask about).
  if action == "discard" and type(id) == "string" then
    local ok, yes = guarded(M.discard_confirmed, id)
    if not ok or not yes then
      return
    end
  end
  -- Asked by the user: the fork's windows may close (ui.fork_ended), whenever it ends.
  ui.user_ends(id, true)
  if not guarded(finish, id, text) then
    ui.user_ends(id, false)
  end
end

return M
