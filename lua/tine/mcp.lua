-- :Tine mcp: the MCP servers with their state (the host's `mcp_servers`); one picked is restarted
-- or stopped, or its last lines of stderr shown. The host says how a restart went, when it has.
local host = require("tine.host")
local util = require("tine.util")

local guarded = util.guarded

local M = {}

--- One server as the picker shows it: name, state, where it is configured and how it starts.
---@param s table a report of the host's `mcp_servers`
---@return string
function M.describe(s)
  return ("%s  %s  (%s: %s)"):format(s.name, s.detail, s.from, s.where)
end

--- :Tine mcp
function M.pick()
  local ok, servers = guarded(host.request, "mcp_servers")
  if not ok then
    return
  end
  if #servers == 0 then
    return vim.notify("tine: no MCP servers are configured (mcp_servers in setup, .tine/mcp.json or .mcp.json)", vim.log.levels.INFO)
  end
  vim.ui.select(servers, { prompt = "MCP servers", format_item = M.describe }, function(s)
    if not s then
      return
    end
    local actions = { "restart", "stop" }
    if #s.stderr > 0 then
      table.insert(actions, "stderr")
    end
    vim.ui.select(actions, { prompt = s.name .. ": " .. s.detail }, function(action)
      if action == "stderr" then
        vim.notify(("tine: MCP server %s, its last stderr lines:\n%s"):format(s.name, table.concat(s.stderr, "\n")))
      elseif action then
        guarded(host.request, "mcp_server", s.name, action)
      end
    end)
  end)
end

return M
