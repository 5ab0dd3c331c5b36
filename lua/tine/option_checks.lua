-- What each option must be (lua/tine/config.lua's defaults say what each one does): setup() checks
-- the merged options against these, so a typo is reported at once with the option's name instead
-- of when the host starts (which checks them again, as it checks all that Lua sends: node/host/config.ts).
-- Each check returns ok and what the value must be (and, for a part of a table, that part's name
-- and what it holds: lua/tine/prices.lua).

local function one_of(values)
  return function(v)
    return vim.tbl_contains(values, v),
      "one of " .. table.concat(
        vim.tbl_map(function(x)
          return ('"%s"'):format(x)
        end, values),
        ", "
      )
  end
end
local function typed(t, opt)
  return function(v)
    return type(v) == t or (opt and v == nil), (opt and "a " .. t .. " or nil" or "a " .. t)
  end
end
local function positive(v)
  return type(v) == "number" and v > 0, "a number above 0"
end
local function string_list(v)
  return type(v) == "table" and vim.iter(v):all(function(x)
    return type(x) == "string"
  end), "a list of strings"
end

---@type table<string, fun(v: any): boolean, string?, string?, string?>
local M = {
  model = typed("string"),
  max_tokens = positive,
  thinking = function(v)
    if v == false or v == nil then
      return true
    end
    return type(v) == "table" and vim.tbl_contains({ "adaptive", "between_tools", "enabled", "disabled" }, v.type),
      'false or a table whose type is "adaptive", "between_tools", "enabled" or "disabled"'
  end,
  effort = function(v)
    return v == nil or vim.tbl_contains({ "low", "medium", "high", "xhigh", "max" }, v),
      'nil or one of "low", "medium", "high", "xhigh", "max"'
  end,
  web_search = typed("boolean"),
  tools_needing_approval = string_list,
  system_prompt = typed("string"),
  instructions = function(v)
    return v == false
      or type(v) == "table"
        and string_list(v.files)
        and type(v.max_bytes) == "number"
        and v.max_bytes >= 1
        and v.max_bytes == math.floor(v.max_bytes),
      "false or a table { files = { paths }, max_bytes = N } (a whole number >= 1)"
  end,
  base_url = typed("string", true),
  bash_timeout = positive,
  stream_idle_timeout = positive,
  max_retry_wait = positive,
  fork_idle_timeout = positive,
  agent_fork_limit = function(v)
    return type(v) == "number" and v >= 0 and v == math.floor(v), "a whole number >= 0"
  end,
  tool_env_deny = string_list,
  mcp_servers = function(v)
    return type(v) == "table" and vim.iter(pairs(v)):all(function(name, s)
      return type(name) == "string" and type(s) == "table" and (type(s.url) == "string" or type(s.command) == "table")
    end),
      "a table of servers by name, each { command = { ... } } or { url = ... }"
  end,
  mcp_auto_approve = string_list,
  mcp_timeout = positive,
  mcp_project_files = function(v)
    return type(v) == "boolean", "true or false"
  end,
  context_max_bytes = positive,
  context_max_files = positive,
  context_git_timeout = positive,
  data_dir = typed("string"),
  persist = typed("boolean"),
  snapshots = typed("boolean"),
  snapshot_keep_days = positive,
  fork_worktree = one_of({ "always", "background", "never" }),
  worktree_dir = function(v)
    return v == false or (type(v) == "string" and v ~= ""), "a folder (a string) or false"
  end,
  fork_open = one_of({ "vsplit", "split", "tab", "replace" }),
  list_max_height = positive,
  auto_title = function(v)
    return type(v) == "boolean" or (type(v) == "string" and v ~= ""), "true, false or a model name"
  end,
  retry_delay_ms = function(v)
    return type(v) == "number" and v >= 0, "a number >= 0"
  end,
  models = string_list,
  thinking_budgets = function(v)
    return type(v) == "table" and vim.iter({ "low", "medium", "high" }):all(function(k)
      return type(v[k]) == "number" and v[k] >= 1024
    end),
      "a table { low = N, medium = N, high = N } (each >= 1024)"
  end,
  auto_compact = function(v)
    return v == false or (type(v) == "number" and v > 0 and v <= 1), "false or a fraction above 0, at most 1"
  end,
  display_fill_step = positive,
  prices = require("tine.prices").check,
  cache_lifetime = positive,
  node = typed("string"),
  complete_max_items = function(v)
    return type(v) == "number" and v >= 1 and v == math.floor(v), "a whole number >= 1"
  end,
  claude_command = function(v)
    return type(v) == "table" and #v > 0 and string_list(v), "a non-empty list of strings"
  end,
  sidebar = function(v)
    return type(v) == "table" and vim.tbl_contains({ "left", "right" }, v.side) and type(v.width) == "number" and v.width > 0 and type(
      v.input_height
    ) == "number" and v.input_height > 0 and type(v.min_editor_width) == "number" and v.min_editor_width >= 0,
      'a table { side = "left"|"right", width = N, input_height = N, min_editor_width = N }'
  end,
  keymaps = function(v)
    if type(v) ~= "table" then
      return false, "a table"
    end
    -- Read when called: lua/tine/config.lua loads this file, so it cannot be required at the top.
    local known_keys = require("tine.config").defaults.keymaps
    for name, lhs in pairs(v) do
      if known_keys[name] == nil then
        return false, ("a table of known keys (no %q)"):format(name)
      end
      if lhs ~= false and type(lhs) ~= "string" then
        return false, ("a table of keys; keymaps.%s is not a string or false"):format(name)
      end
    end
    return true
  end,
}

return M
