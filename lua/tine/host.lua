-- Starts the Node host lazily, talks to it over msgpack-RPC, and reports its death. This is the
-- only place that knows how the host runs (a jobstart child, or the classic remote-plugin host).
local config = require("tine.config")

local M = {}

local chan = nil
local starting = false
local stderr_tail = {}
--- Set when the host died: commands then say so instead of quietly starting a host that knows
--- none of the open buffers. :Tine restart clears it.
local dead = nil
--- Calls made with request_async that the host has not answered yet: token -> callback.
local waiting = {}
local last_token = 0
--- Counts the hosts started and stopped: a list the last host sent is not the new one's
--- (threads_mirror.lua asks again).
M.generation = 0

--- A request's answer: its result, and the thread list when it changed (node/rpc/handlers.ts).
local function unwrap(answer)
  if type(answer) ~= "table" then
    return answer
  end
  if answer.threads ~= nil and answer.threads ~= vim.NIL then
    require("tine.threads_mirror").pushed(answer.threads)
  end
  if answer.result == vim.NIL then
    return nil
  end
  return answer.result
end

local root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h")
M.root = root
M.script = root .. "/dist/host.cjs"

--- What builds the host, for the messages that say it is not built. Under lazy.nvim its own
--- command, which shows the build's output: it runs the spec's `build`, which a `dir =` spec needs
--- too (lazy.nvim builds those only when told to). lazy.nvim names a plugin after its folder.
function M.build_hint()
  local command = "node scripts/install.mjs"
  if package.loaded["lazy"] then
    return ("run :Lazy build %s (its spec needs build = %q)"):format(vim.fn.fnamemodify(root, ":t"), command)
  end
  return ("run `%s` in %s"):format(command, root)
end

function M.log_path()
  return vim.fn.stdpath("log") .. "/tine.log"
end

local function log(lines)
  local text = {}
  for _, l in ipairs(lines) do
    if l ~= "" then
      table.insert(text, os.date("%H:%M:%S ") .. l .. "\n")
    end
  end
  if #text == 0 then
    return
  end
  -- 0600 like the stored threads: the log holds stack traces, paths and titles.
  local fd = vim.uv.fs_open(M.log_path(), "a", tonumber("600", 8))
  if not fd then
    return
  end
  vim.uv.fs_write(fd, table.concat(text))
  vim.uv.fs_close(fd)
end

--- What the host receives at `init`: the options whole (it checks them, and derives what it shows
--- from them, e.g. the keys a fork's banner names), the unset ones as vim.NIL (a nil field would
--- not be sent at all, and the host wants every option), and the working directory.
---@return TineHostConfig
local function host_config()
  local sent = vim.deepcopy(config.options)
  for name in pairs(config.lua_only) do
    sent[name] = nil
  end
  for name in pairs(config.unset) do
    if sent[name] == nil then
      sent[name] = vim.NIL
    end
  end
  sent.cwd = vim.fn.getcwd()
  return sent
end

function M.running()
  return chan ~= nil
end

function M.died()
  return dead ~= nil
end

--- The host process's pid (nil when it is not running or runs in the remote-plugin host).
function M.pid()
  if type(chan) ~= "number" then
    return nil
  end
  local ok, pid = pcall(vim.fn.jobpid, chan)
  return ok and pid or nil
end

local function start()
  if vim.g.tine_rplugin == 1 then
    chan = "rplugin"
    vim.fn.TineRequest("init", { host_config() })
    return
  end
  if vim.fn.filereadable(M.script) == 0 then
    error("tine: the host is not built: " .. M.build_hint(), 0)
  end
  if vim.fn.executable(config.options.node) == 0 then
    error(("tine: `%s` (Node >= 20) was not found"):format(config.options.node), 0)
  end
  stderr_tail = {}
  local id
  id = vim.fn.jobstart({ config.options.node, M.script }, {
    rpc = true,
    on_stderr = function(_, data)
      log(data)
      for _, l in ipairs(data) do
        if l ~= "" then
          table.insert(stderr_tail, l)
        end
      end
      while #stderr_tail > 20 do
        table.remove(stderr_tail, 1)
      end
    end,
    on_exit = function(_, code)
      -- Only the current host's death matters; a stopped old one is expected.
      if chan ~= id then
        return
      end
      chan = nil
      M.generation = M.generation + 1
      -- Calls made without waiting get the death as their answer (a start that failed says so).
      local unanswered = waiting
      waiting = {}
      for _, callback in pairs(unanswered) do
        vim.schedule(function()
          callback(("tine: the host exited (code %d) before it answered. Log: %s"):format(code, M.log_path()))
        end)
      end
      if code ~= 0 and vim.v.exiting == vim.NIL then
        dead = { code = code }
        local last = stderr_tail[#stderr_tail] or ""
        vim.schedule(function()
          vim.notify(
            ("tine: the host exited (code %d). %s\nLog: %s. Run :Tine restart to recover."):format(code, last, M.log_path()),
            vim.log.levels.ERROR
          )
          require("tine.buffers").host_died()
        end)
      end
    end,
  })
  if id <= 0 then
    error("tine: could not start the host with " .. config.options.node, 0)
  end
  chan = id
  M.generation = M.generation + 1
  -- The options go as a notification, written with the request that started the host, which the
  -- host answers after them: one round trip fewer while the user waits. The host answers a failed
  -- start to that request and every later one.
  vim.rpcnotify(chan, "tine", "init", host_config())
  -- What the host calls first (the new thread's buffers) is loaded while Node starts, not after.
  require("tine.host_api")
  require("tine.review_signs").attach()
end

--- Starts the host unless it runs; raises when it died or cannot start.
local function ensure_started()
  if dead then
    error(
      ("tine: the host exited (code %d; log: %s). Run :Tine restart: your stored threads come back."):format(dead.code, M.log_path()),
      0
    )
  end
  if chan then
    return
  end
  if starting then
    error("tine: the host is starting", 0)
  end
  starting = true
  local ok, err = pcall(start)
  starting = false
  if not ok then
    error(err, 0)
  end
end

--- Calls the host; errors are raised as Lua errors with the host's message.
function M.request(method, ...)
  ensure_started()
  if chan == "rplugin" then
    return unwrap(vim.fn.TineRequest(method, { ... }))
  end
  return unwrap(vim.rpcrequest(chan, "tine", method, ...))
end

--- Calls the host without waiting for it: Neovim goes on at once (the host may still be starting),
--- and `callback(err, result)` runs from the main loop once the host has answered (`err`: its
--- message, or nil). The host answers through `answered`. A host that cannot start or dies first
--- is an `err` too. The remote-plugin host has no such call: it is asked at once.
---@param method string
---@param args any[]
---@param callback fun(err: string?, result: any)
function M.request_async(method, args, callback)
  local ok, err = pcall(ensure_started)
  if not ok then
    return callback(err)
  end
  if chan == "rplugin" then
    local done, result = pcall(vim.fn.TineRequest, method, args)
    return callback(not done and result or nil, done and unwrap(result) or nil)
  end
  last_token = last_token + 1
  waiting[last_token] = callback
  vim.rpcnotify(chan, "tine_async", last_token, method, unpack(args))
end

--- The host's answer to request_async call `token` (called by the host through nvim_exec_lua).
function M.answered(token, err, result)
  if err == nil or err == vim.NIL then
    result = unwrap(result)
  end
  local callback = waiting[token]
  waiting[token] = nil
  if callback then
    vim.schedule(function()
      callback(err ~= vim.NIL and err or nil, result ~= vim.NIL and result or nil)
    end)
  end
end

---@param wait_ms integer? how long to wait for the host to be gone (a restart: the new host takes the
--- threads' write locks, which the old one holds until it exits); nil: not at all
function M.stop(wait_ms)
  local c = chan
  chan = nil
  M.generation = M.generation + 1
  dead = nil
  local unanswered = waiting
  waiting = {}
  for _, callback in pairs(unanswered) do
    vim.schedule(function()
      callback("tine: the host was stopped before it answered")
    end)
  end
  if type(c) == "number" then
    pcall(vim.fn.jobstop, c)
    if wait_ms then
      -- Neovim kills a job that outlives jobstop's SIGTERM by 2 s: gone by then either way.
      pcall(vim.fn.jobwait, { c }, wait_ms)
    end
  end
end

vim.api.nvim_create_autocmd("VimLeavePre", {
  group = vim.api.nvim_create_augroup("tine.host", { clear = true }),
  callback = function()
    M.stop()
  end,
})

return M
