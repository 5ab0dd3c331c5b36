-- What require('tine').threads() answers: the host's thread list as it last sent it. A statusline
-- calls threads() on every redraw; asking the host each time would hold Neovim for as long as the
-- host takes to answer, which grows while forks stream. The first call asks the host for the
-- whole list; from then on the host sends what changed (node/view/threads-mirror.ts): entries of
-- threads that changed, and the order when threads came or went, after a drawing pass and with
-- the answer to any call that changed them, so after any call threads() is as current as the
-- host. Each entry and order carries the sequence number it was sent with and the newest of each
-- is kept: a push queued behind an answer arrives late and changes nothing. A new host (a
-- restart) is asked again.
local host = require("tine.host")

local M = {}

local entries, entry_seq = {}, {}
local order, order_seq = nil, -1
--- host.generation when the list came: another host's list is not kept.
local from = nil

--- What the host sent: { seq, set = entries, order = ids or nil }.
function M.pushed(mirrored)
  local seq = mirrored.seq
  for _, info in ipairs(mirrored.set) do
    if seq > (entry_seq[info.id] or -1) then
      entries[info.id], entry_seq[info.id] = info, seq
    end
  end
  if mirrored.order ~= nil and mirrored.order ~= vim.NIL and seq > order_seq then
    order, order_seq = mirrored.order, seq
    -- Entries of threads that went are not kept (one coming back is sent again).
    local present = {}
    for _, id in ipairs(order) do
      present[id] = true
    end
    for id in pairs(entries) do
      if not present[id] then
        entries[id], entry_seq[id] = nil, nil
      end
    end
  end
end

--- This project's threads, oldest first: a copy (callers may change what they get).
function M.threads()
  if order == nil or from ~= host.generation then
    entries, entry_seq, order, order_seq = {}, {}, nil, -1
    local generation = host.generation
    local whole = host.request("threads")
    if host.generation ~= generation then
      -- The call started a host: what it sent with the answer is this host's too.
      entries, entry_seq, order, order_seq = {}, {}, nil, -1
    end
    M.pushed(whole)
    from = host.generation
  end
  local out = {}
  for _, id in ipairs(order) do
    if entries[id] then
      table.insert(out, vim.deepcopy(entries[id]))
    end
  end
  return out
end

return M
