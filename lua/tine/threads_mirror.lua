-- What require('tine').threads() answers: the host's thread list as it last sent it. A statusline
-- calls threads() on every redraw; asking the host each time would hold Neovim for as long as the
-- host takes to answer, which grows while forks stream. The first call asks the host; from then
-- on the host pushes the list whenever it changes (node/view/threads-mirror.ts), and a call asks
-- again only when another call to the host came in between (it may have changed the list, and its
-- push may still be on its way). Each list carries a sequence number: an older one arriving late
-- (a push queued behind an answer) is dropped.
local host = require("tine.host")

local M = {}

local list = nil
local seq = -1
--- host.calls when `list` was last asked for: equal while no other call came in between.
local asked_at = nil

--- A copy: callers may change what they get.
function M.threads()
  if list == nil or asked_at ~= host.calls then
    local mirrored = host.request("threads")
    list, seq = mirrored.threads, mirrored.seq
    asked_at = host.calls
  end
  return vim.deepcopy(list)
end

--- A list the host pushed: kept unless a newer one is already here.
function M.pushed(mirrored)
  if mirrored.seq > seq then
    list, seq = mirrored.threads, mirrored.seq
  end
end

return M
