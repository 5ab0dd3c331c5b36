-- What setup() checks of `prices` (one of lua/tine/option_checks.lua): setup reports a wrong rate
-- and keeps the built-in table, instead of the host refusing the options and every command failing.
local M = {}

local RATE_FIELDS = { "input", "output", "cache_write", "cache_read", "context_window" }

--- `prices`: rates by model name, each field a finite number >= 0 (context_window above 0), as the
--- host checks them again (node/usage/prices.ts). A wrong one names its model and field: the
--- check returns ok, what the value must be, and, when it is a part of the table, that part's
--- name and what it holds (config.lua's `M.problems` says them).
---@param v any
---@return boolean ok
---@return string? what
---@return string? at
---@return string? shown
function M.check(v)
  local table_of = "a table of rates by model name"
  if type(v) ~= "table" then
    return false, table_of
  end
  for model, r in pairs(v) do
    if type(model) ~= "string" then
      return false, table_of, "prices", ("%s as a name"):format(vim.inspect(model))
    end
    local at = ("prices[%q]"):format(model)
    if type(r) ~= "table" then
      return false, ("a table { %s }"):format(table.concat(RATE_FIELDS, ", ")), at, vim.inspect(r)
    end
    for _, field in ipairs(RATE_FIELDS) do
      local n = r[field]
      local window = field == "context_window"
      -- n ~= n: NaN; math.huge: no rate.
      if type(n) ~= "number" or n ~= n or n == math.huge or n < 0 or (window and n <= 0) then
        return false,
          window and "a number above 0" or "a number >= 0 (dollars per million tokens)",
          ("%s.%s"):format(at, field),
          vim.inspect(n)
      end
    end
  end
  return true
end

return M
