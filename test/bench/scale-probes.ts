/**
 * The Lua chunks scale.bench.ts runs in Neovim (nvim_exec_lua; `...` are their arguments) to
 * time things from inside Neovim's main loop, where a user waits.
 */

/**
 * Forks `src` with a prompt and waits (up to `limit` ms) until the fork's display shows `marker`
 * (the source's last message): { id, display, ms } from the call, ms nil when it never showed.
 */
export const FORK_TIMED = `
local src, marker, limit = ...
local t0 = vim.uv.hrtime()
local id = require('tine').fork(src, 'p')
local disp = vim.b.tine_display
if not disp or vim.b[disp].tine_thread ~= id then
  disp = nil
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.b[b].tine_thread == id and vim.b[b].tine_input then disp = b break end
  end
end
local function shows()
  if not disp then return false end
  for _, l in ipairs(vim.api.nvim_buf_get_lines(disp, 0, -1, false)) do
    if l:find(marker, 1, true) then return true end
  end
  return false
end
local ok = vim.wait(limit, shows, 1)
return { id = id, display = disp, ms = ok and (vim.uv.hrtime() - t0) / 1e6 or vim.NIL }`;

/** Sends "ping <word>" in `id` and waits until its display `disp` shows the reply "pong <word>": ms, or nil. */
export const SEND_TIMED = `
local id, disp, word, limit = ...
local t0 = vim.uv.hrtime()
require('tine').send(id, 'ping ' .. word)
local want = 'pong ' .. word
local function shows()
  local n = vim.api.nvim_buf_line_count(disp)
  for _, l in ipairs(vim.api.nvim_buf_get_lines(disp, math.max(0, n - 10), -1, false)) do
    if l:find(want, 1, true) then return true end
  end
  return false
end
local ok = vim.wait(limit, shows, 1)
return ok and (vim.uv.hrtime() - t0) / 1e6 or vim.NIL`;

/** What CALLS_PROBE leaves in _G.tine_bench_calls. */
export type CallsProbeResult = {
  done: string;
  calls: number;
  max_call: number;
  max_late: number;
  sum: number;
  ms: number;
  lists: number;
  max_list: number;
  max_wait: number;
  seen?: Record<string, number>;
  error?: string;
};

/**
 * Every \`every\` ms, from Neovim's main loop (vim.schedule: it waits for whatever holds the loop),
 * calls require('tine').threads() and times the call; every tenth tick runs :Tine threads too
 * (the list, asked of the host) and times that, and every tenth (offset) times current(), which
 * waits for the host's answer, for comparison. Also records the longest lateness of a tick (the
 * loop held by something else: the list's window opening, the host's writes). Stops when no
 * thread has a status of \`working\` (default { 'streaming' }; a thread running its tools is
 * 'waiting'), or after \`limit\` ms. \`seen\`: how many times threads() gave each status.
 * Results in _G.tine_bench_calls.
 */
export const CALLS_PROBE = `
local every, limit, working = ...
local busy = {}
for _, status in ipairs(working or { 'streaming' }) do busy[status] = true end
local P = { calls = 0, max_call = 0, max_late = 0, sum = 0, lists = 0, max_list = 0, max_wait = 0, seen = {} }
_G.tine_bench_calls = P
local t0 = vim.uv.hrtime()
local prev = nil
local timer = vim.uv.new_timer()
timer:start(every, every, vim.schedule_wrap(function()
  if P.done then return end
  local start = vim.uv.hrtime()
  if prev then P.max_late = math.max(P.max_late, (start - prev) / 1e6 - every) end
  local ok, threads = pcall(require('tine').threads)
  local took = (vim.uv.hrtime() - start) / 1e6
  P.calls = P.calls + 1
  P.sum = P.sum + took
  P.max_call = math.max(P.max_call, took)
  if P.calls % 10 == 0 then
    local t = vim.uv.hrtime()
    pcall(vim.cmd, 'Tine threads')
    P.max_list = math.max(P.max_list, (vim.uv.hrtime() - t) / 1e6)
    P.lists = P.lists + 1
  elseif P.calls % 10 == 5 then
    -- For comparison: a function of the API that waits for the host's answer.
    local t = vim.uv.hrtime()
    pcall(require('tine').current)
    P.max_wait = math.max(P.max_wait, (vim.uv.hrtime() - t) / 1e6)
  end
  prev = vim.uv.hrtime()
  local at_work = 0
  if ok then
    for _, t in ipairs(threads) do
      P.seen[t.status] = (P.seen[t.status] or 0) + 1
      if busy[t.status] then at_work = at_work + 1 end
    end
  else
    P.error = tostring(threads)
  end
  if not ok or at_work == 0 or (prev - t0) / 1e6 > limit then
    P.done = ok and (at_work == 0 and 'drained' or 'timeout') or 'error'
    P.ms = (prev - t0) / 1e6
    timer:stop()
    timer:close()
  end
end))`;

/**
 * Opens stored thread \`id\` (require('tine').open, from the main loop) and watches its display
 * every 5 ms. \`first\`: when the display's window shows \`last\` (the thread opens at its end:
 * its first screen), from the call; \`all\`: when the buffer's first lines hold \`first\` and its
 * last lines \`last\` (all shown). \`open_call\`: how long the call held Neovim; \`max_gap\`: the
 * longest time between two ticks from the first screen to all shown (Neovim held by what fills
 * the buffer in, or by anything else); \`max_apply\`, \`applies\`: the longest of the host's
 * writes into Neovim (tine.host_api.apply) in that time, and how many there were. Results in
 * _G.tine_bench_open; gives up after \`limit\` ms.
 */
export const OPEN_PROBE = `
local id, first, last, limit = ...
local every = 5
local P = { max_gap = 0, max_apply = 0, applies = 0 }
_G.tine_bench_open = P
local api = require('tine.host_api')
local apply = api.apply
api.apply = function(...)
  local t = vim.uv.hrtime()
  local r = apply(...)
  if P.first and not P.done then
    P.max_apply = math.max(P.max_apply, (vim.uv.hrtime() - t) / 1e6)
    P.applies = P.applies + 1
  end
  return r
end
local t0, prev, disp = nil, nil, nil
local timer = vim.uv.new_timer()
local function finish(how)
  P.done = how
  timer:stop()
  timer:close()
end
local function has(from, to, text)
  for _, l in ipairs(vim.api.nvim_buf_get_lines(disp, from, to, false)) do
    if l:find(text, 1, true) then return true end
  end
  return false
end
timer:start(every, every, vim.schedule_wrap(function()
  if P.done or not t0 then return end
  local now = vim.uv.hrtime()
  if P.first then P.max_gap = math.max(P.max_gap, (now - prev) / 1e6) end
  local at = (now - t0) / 1e6
  if disp and vim.api.nvim_buf_is_valid(disp) then
    local n = vim.api.nvim_buf_line_count(disp)
    local win = vim.fn.win_findbuf(disp)[1]
    if not P.first and win and has(vim.fn.line('w0', win) - 1, vim.fn.line('w$', win), last) then P.first = at end
    if P.first and has(0, math.min(n, 60), first) and has(math.max(0, n - 8), n, last) then
      P.all = at
      return finish('all')
    end
  end
  if at > limit then return finish('timeout') end
  prev = vim.uv.hrtime()
end))
vim.schedule(function()
  t0 = vim.uv.hrtime()
  local ok, e = pcall(require('tine').open, id)
  P.open_call = (vim.uv.hrtime() - t0) / 1e6
  if not ok then
    P.error = tostring(e)
    return finish('error')
  end
  disp = vim.b.tine_display
end)`;

/**
 * :Tine in a Neovim whose host has not started: { ready, host } ms. `ready`: until the command
 * returned with a thread ready for input (the cursor in a thread's input window in the sidebar,
 * its buffer modifiable), nil when it did not; `host`: until the host had taken that thread over
 * (its display belongs to a thread), nil after 5 s.
 */
export const TINE_TIMED = `
local t0 = vim.uv.hrtime()
vim.cmd('Tine')
local took = (vim.uv.hrtime() - t0) / 1e6
local win = vim.api.nvim_get_current_win()
local disp = vim.b.tine_display
local ready = disp ~= nil and vim.bo.modifiable and require('tine.ui').sidebar().input == win
local owned = vim.wait(5000, function() return disp ~= nil and vim.b[disp].tine_thread ~= nil end, 1)
return { ready = ready and took or vim.NIL, host = owned and (vim.uv.hrtime() - t0) / 1e6 or vim.NIL }`;
