-- What require('tine').threads() answers: the host's thread list as it last sent it. A statusline
-- calls threads() on every redraw; asking the host each time would hold Neovim for as long as the
-- host takes to answer, which grows while forks stream. The first call asks the host; from then
-- on the host sends the list whenever it changes (node/view/threads-mirror.ts): pushed after a
-- drawing pass, and with the answer to any call that changed it, so after any call threads() is
-- as current as the host. Each list carries a sequence number: an older one arriving late (a push
-- queued behind an answer) is dropped. A new host (a restart) is asked again.
local host = require("tine.host")

local M = {}

local list = nil
local seq = -1
--- host.generation when `list` came: another host's list is not kept.
local from = nil

--- A copy: callers may change what they get.
function M.threads()
  if list == nil or from ~= host.generation then
    list, seq = nil, -1
    local mirrored = host.request("threads")
    list, seq, from = mirrored.threads, mirrored.seq, host.generation
  end
  return vim.deepcopy(list)
end

--- A list the host sent: kept unless a newer one is already here.
function M.pushed(mirrored)
  if mirrored.seq > seq then
    list, seq, from = mirrored.threads, mirrored.seq, host.generation
  end
end

return M
