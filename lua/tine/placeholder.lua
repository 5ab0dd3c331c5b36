-- The first `:Tine` before the host runs: a display and an input are made and shown at once, the
-- cursor in the input, while Node starts in the background (Node alone takes most of a tenth of a
-- second). The host's first thread takes these very buffers over (buffers.create_thread_buffers
-- claims them), so what was typed stays where it is; a send made meanwhile goes once it has. A
-- host that cannot start closes them and says why, as `:Tine` always did.
local config = require("tine.config")

local M = {}

local ns = vim.api.nvim_create_namespace("tine.placeholder")

--- The buffers waiting for the host: { display, input, send = a send was asked for }, or nil.
local pending = nil

local function scratch(name)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = "markdown"
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

--- Says in the display what is happening (virtual text: the host's first render expects it empty).
local function say(text)
  vim.api.nvim_buf_clear_namespace(pending.display, ns, 0, -1)
  vim.api.nvim_buf_set_extmark(pending.display, ns, 0, 0, { virt_text = { { text, "Comment" } } })
end

local function valid(p)
  return p and vim.api.nvim_buf_is_valid(p.display) and vim.api.nvim_buf_is_valid(p.input)
end

--- Gives up the buffers (the host could not start, or made others).
local function discard(p)
  for _, buf in ipairs({ p.display, p.input }) do
    if vim.api.nvim_buf_is_valid(buf) then
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
end

--- The host's answer to `active_buffers`: the thread in the sidebar is the one it made.
local function ready(p, err, t)
  if pending == p then
    pending = nil
  end
  if err then
    discard(p)
    return vim.notify(err, vim.log.levels.ERROR)
  end
  if t.display ~= p.display or t.input ~= p.input then
    -- Not claimed (the user wiped them meanwhile): the host's own buffers go where they would have.
    discard(p)
    return require("tine.ui").show(t.display, t.input)
  end
  if p.send then
    require("tine.keys").send_input(p.input)
  else
    require("tine.list").offer_if_cut(t)
  end
end

--- `:Tine` with no host: shows a thread's buffers at once and starts the host without waiting.
--- False when that is not how this host starts (the remote-plugin host, a host that died).
function M.start()
  local host = require("tine.host")
  if host.running() or host.died() or vim.g.tine_rplugin == 1 then
    return false
  end
  if valid(pending) then
    require("tine.ui").show(pending.display, pending.input)
    return true
  end
  local display = scratch("tine (starting)")
  vim.bo[display].modifiable = false
  local input = scratch("tine (starting) [input]")
  vim.b[display].tine_input = input
  vim.b[input].tine_display = display
  local p = { display = display, input = input, send = false }
  pending = p
  local function send_later()
    p.send = true
    say("tine is starting: your message goes once it has")
  end
  local km = config.options.keymaps
  for _, k in ipairs({ { "n", km.send }, { { "n", "i" }, km.send_any } }) do
    if k[2] and k[2] ~= "" then
      vim.keymap.set(k[1], k[2], send_later, { buffer = input, nowait = true, silent = true, desc = "tine: send" })
    end
  end
  say("tine is starting…")
  require("tine.ui").show(display, input)
  host.request_async("active_buffers", {}, function(err, t)
    ready(p, err, t)
  end)
  return true
end

--- Renames `buf`; the buffer Neovim keeps under the old name (an alternate file) goes.
local function rename(buf, name)
  local old = vim.api.nvim_buf_get_name(buf)
  pcall(vim.api.nvim_buf_set_name, buf, name)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if b ~= buf and vim.api.nvim_buf_get_name(b) == old then
      pcall(vim.api.nvim_buf_delete, b, { force = true })
    end
  end
end

--- For the host's first thread: the buffers shown while it started (each a scratch buffer with
--- nothing in it but what the user typed), named as the thread's now; nil when there are none.
---@return { display: integer, input: integer }?
function M.claim(display_name, input_name)
  local p = pending
  if not valid(p) or p.claimed then
    return nil
  end
  p.claimed = true
  rename(p.display, display_name)
  rename(p.input, input_name)
  vim.api.nvim_buf_clear_namespace(p.display, ns, 0, -1)
  local km = config.options.keymaps
  for _, k in ipairs({ { "n", km.send }, { "n", km.send_any }, { "i", km.send_any } }) do
    pcall(vim.keymap.del, k[1], k[2], { buffer = p.input })
  end
  return { display = p.display, input = p.input }
end

--- Whether `:Tine` showed a thread the host has not answered for yet.
function M.waiting()
  return pending ~= nil
end

return M
