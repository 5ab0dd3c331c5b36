-- Claude Code from Neovim (:help tine-claude-code): its command checked before the host is asked
-- to start a session in it (:Tine claude) or to continue a thread there (:Tine export), and the
-- session's terminal shown. The sessions and their threads are the host's (node/claude-code/).
local config = require("tine.config")
local host = require("tine.host")
local ui = require("tine.ui")

local M = {}

--- The configured Claude Code command, or an error that says how to set it.
---@return string[]
function M.command()
  local cmd = vim.deepcopy(config.options.claude_command)
  if vim.fn.executable(cmd[1]) == 0 then
    error(('tine: `%s` was not found: install Claude Code, or set claude_command in setup() (e.g. { "npx", "claude" })'):format(cmd[1]), 0)
  end
  return cmd
end

--- :Tine claude [args]: a thread run by Claude Code in a terminal (with --session-id injected).
---@param args? string the command line's arguments, split as a shell would
---@return string id
function M.start(args)
  M.command()
  local t = host.request("new_claude", args or "")
  ui.show(t.display, t.input)
  vim.cmd("startinsert")
  return t.id
end

--- Writes thread `id` as a Claude Code session (the thread is unchanged) and continues it in
--- Claude Code, as a thread of its own under this one. Returns the new session id.
---@param id string
---@return string session_id
function M.export(id)
  M.command()
  local out = host.request("export_claude", id)
  ui.show(out.display, out.input)
  vim.notify(("tine: exported as Claude Code session %s (%s)"):format(out.session_id, out.path), vim.log.levels.INFO)
  return out.session_id
end

return M
