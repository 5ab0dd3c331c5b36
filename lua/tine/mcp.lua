-- :Tine mcp: the MCP servers with their state (the host's `mcp_servers`); one picked has its tools
-- listed, is restarted or stopped, or its last lines of stderr shown. The host says how a restart
-- went, when it has.
local host = require("tine.host")
local util = require("tine.util")

local guarded = util.guarded

local M = {}

--- One server as the picker shows it: name, state, where it is configured and how it starts.
---@param s table a report of the host's `mcp_servers`
---@return string
function M.describe(s)
  local signin = (s.signin or "") ~= "" and ("  [%s]"):format(s.signin) or ""
  return ("%s  %s%s  (%s: %s)"):format(s.name, s.detail, signin, s.from, s.where)
end

--- Shows a remote server's sign-in page: through `mcp_open_url` when set, else the URL in a
--- notification (to open elsewhere, as on a machine without a browser) and vim.ui.open.
---@param server string
---@param url string
function M.open_url(server, url)
  local opener = require("tine.config").options.mcp_open_url
  if opener then
    local ok, err = pcall(opener, url, server)
    if not ok then
      vim.notify(("tine: mcp_open_url failed (%s); sign in to %s at:\n%s"):format(err, server, url), vim.log.levels.ERROR)
    end
    return
  end
  vim.notify(("tine: sign in to MCP server %s at:\n%s"):format(server, url), vim.log.levels.INFO)
  if vim.ui.open then
    pcall(vim.ui.open, url)
  end
end

--- What can be done to server `s` in the picker, by its state.
---@param s table a report of the host's `mcp_servers`
---@return string[]
function M.actions(s)
  local actions = { "tools", "restart", "stop" }
  if s.signin_state == "signed-in" then
    table.insert(actions, "sign out")
  elseif s.signin_state ~= "not-asked" then
    table.insert(actions, 1, "sign in")
    table.insert(actions, "sign out")
  end
  if #s.stderr > 0 then
    table.insert(actions, "stderr")
  end
  return actions
end

--- The lines of a server's tools list: a head saying how mcp_auto_approve names them, then each tool
--- as `server/tool` with its description (a description's further lines indented under it).
---@param server string
---@param tools {name: string, description: string}[]
---@return string[]
function M.tool_lines(server, tools)
  local lines = {
    ("MCP server %s: %d tool%s · mcp_auto_approve takes %q (all of them) or %q"):format(
      server,
      #tools,
      #tools == 1 and "" or "s",
      server,
      server .. "/<tool>"
    ),
  }
  for _, t in ipairs(tools) do
    -- A server's text may hold any character: a buffer line none that ends it.
    local description = vim.split(t.description:gsub("\r\n?", "\n"), "\n", { trimempty = true })
    local name = (server .. "/" .. t.name):gsub("%c", " ")
    table.insert(lines, description[1] and ("%s  %s"):format(name, description[1]) or name)
    for i = 2, #description do
      table.insert(lines, "    " .. description[i])
    end
  end
  return lines
end

--- Shows a server's tools in a read-only scratch buffer below (`q` closes it), named `tine-mcp://<server>`.
---@param server string
---@param tools {name: string, description: string}[]
local function show_tools(server, tools)
  local lines = M.tool_lines(server, tools)
  local name = "tine-mcp://" .. server
  local old = vim.fn.bufnr(name)
  if old ~= -1 then
    pcall(vim.api.nvim_buf_delete, old, { force = true })
  end
  local buf = require("tine.ui").scratch_below(lines, 15, name)
  vim.keymap.set("n", "q", "<Cmd>close<CR>", { buffer = buf, nowait = true, desc = "tine: close the tools list" })
end

--- Lists server `name`'s tools once the host has them (it starts the server first when it is not running).
---@param s table a report of the host's `mcp_servers`
local function list_tools(s)
  if s.state ~= "ready" then
    vim.notify(("tine: starting MCP server %s to list its tools…"):format(s.name), vim.log.levels.INFO)
  end
  host.request_async("mcp_tools", { s.name }, function(err, tools)
    if err then
      return vim.notify(err, vim.log.levels.ERROR)
    end
    show_tools(s.name, tools)
  end)
end

--- Why no MCP server is used, for `:Tine mcp` and `:checkhealth tine`: none configured, or the
--- project's files that are there but not read (`unread`: the host's words, one per file).
function M.none(unread)
  if #unread == 0 then
    return "no MCP servers are configured (mcp_servers in setup, .tine/mcp.json or .mcp.json)"
  end
  return "no MCP servers are used: " .. table.concat(unread, "; ")
end

--- :Tine mcp
function M.pick()
  local ok, servers = guarded(host.request, "mcp_servers")
  if not ok then
    return
  end
  if #servers == 0 then
    local unread_ok, unread = guarded(host.request, "mcp_unread")
    if unread_ok then
      vim.notify("tine: " .. M.none(unread), vim.log.levels.INFO)
    end
    return
  end
  vim.ui.select(servers, { prompt = "MCP servers", format_item = M.describe }, function(s)
    if not s then
      return
    end
    vim.ui.select(M.actions(s), { prompt = s.name .. ": " .. s.detail }, function(action)
      if action == "tools" then
        list_tools(s)
      elseif action == "stderr" then
        vim.notify(("tine: MCP server %s, its last stderr lines:\n%s"):format(s.name, table.concat(s.stderr, "\n")))
      elseif action then
        -- "sign in" / "sign out" are the host's "sign-in" / "sign-out"
        guarded(host.request, "mcp_server", s.name, (action:gsub(" ", "-")))
      end
    end)
  end)
end

return M
