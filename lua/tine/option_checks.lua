-- Checks a value against a rule of lua/tine/option_rules.lua: the options' rules, written once in
-- node/core/options.ts and checked there too by the host (node/core/rules.ts is that checker; this
-- one follows it step by step). A rule is data: what a value must be, and the words a problem says
-- (`wanted`); no message text is made here but the frame ("… must be …", "… has no …").
local M = {}

---@class TineOptionProblem
---@field name string where: `sidebar.width`, `prices["claude-x"]`
---@field wanted? string what it must be
---@field shown? string what it was, as vim.inspect shows it
---@field key? string a field no rule names
---@field known? string[] the fields there are

local function wrong(name, wanted, shown)
  return { name = name, wanted = wanted, shown = shown }
end

local function is_nil(v)
  return v == nil or v == vim.NIL
end

--- A list (or the empty table): Lua's `{}` is a list and a table of names alike.
local function is_list(v)
  return type(v) == "table" and (next(v) == nil or vim.islist(v))
end

local check

--- The fields `order` names, each checked; `known`: refuse any other (the fields there are).
local function fields_of(rule_of, order, v, name, root, known)
  if known then
    local names = {}
    for k in pairs(v) do
      table.insert(names, k)
    end
    table.sort(names, function(a, b)
      return tostring(a) < tostring(b)
    end)
    for _, k in ipairs(names) do
      if not vim.tbl_contains(known, k) then
        return { name = name, key = k, known = known }
      end
    end
  end
  for _, field in ipairs(order) do
    local problem = check(rule_of(field), v[field], name .. "." .. field, root)
    if problem then
      return problem
    end
  end
end

local function in_bounds(rule, v, root)
  -- v % 1 is nan for nan and ±inf: neither is whole.
  if (rule.whole and v % 1 ~= 0) or (rule.finite and (v ~= v or v == math.huge or v == -math.huge)) then
    return false
  end
  if (rule.min and not (v >= rule.min)) or (rule.above and not (v > rule.above)) or (rule.max and not (v <= rule.max)) then
    return false
  end
  local limit = rule.below_option and type(root) == "table" and root[rule.below_option]
  return type(limit) ~= "number" or v < limit
end

local kinds = {}

function kinds.string(rule, v)
  if type(v) ~= "string" or (rule.non_empty and v == "") or (rule.max_length and #v > rule.max_length) then
    return false
  end
  if rule.starts then
    local starts = false
    for _, s in ipairs(rule.starts) do
      starts = starts or v:sub(1, #s) == s
    end
    if not starts then
      return false
    end
  end
  -- `chars` is a regex class body; in a Lua class a trailing "-" is written "%-".
  return rule.chars == nil or v:find("^[" .. rule.chars:gsub("%-$", "%%-") .. "]*$") ~= nil
end

function kinds.boolean(_, v)
  return type(v) == "boolean"
end

function kinds.number(rule, v, _, root)
  return type(v) == "number" and in_bounds(rule, v, root)
end

function kinds.one_of(rule, v)
  return vim.tbl_contains(rule.values, v)
end

function kinds.literal(rule, v)
  return v == rule.value
end

function kinds.list(rule, v, name, root)
  if not is_list(v) or (rule.non_empty and #v == 0) then
    return false
  end
  for i, item in ipairs(v) do
    local problem = check(rule.of, item, ("%s[%d]"):format(name, i), root)
    if problem then
      return true, problem
    end
  end
  return true
end

function kinds.map(rule, v, name, root)
  if type(v) ~= "table" then
    return false
  end
  local keys = vim.tbl_keys(v)
  table.sort(keys, function(a, b)
    return tostring(a) < tostring(b)
  end)
  for _, k in ipairs(keys) do
    if type(k) ~= "string" then
      return true, wrong(name, rule.wanted, ("%s as a name"):format(vim.inspect(k)))
    end
    local at = rule.names == "dotted" and ("%s.%s"):format(name, k) or ("%s[%q]"):format(name, k)
    local problem = (rule.key and check(rule.key, k, at, root)) or check(rule.of, v[k], at, root)
    if problem then
      return true, problem
    end
  end
  return true
end

function kinds.record(rule, v, name, root)
  if type(v) ~= "table" or (next(v) ~= nil and vim.islist(v)) then
    return false
  end
  local function rule_of(field)
    return rule.fields and rule.fields[field] or rule.each
  end
  return true, fields_of(rule_of, rule.order, v, name, root, rule.extra == "refused" and rule.order or nil)
end

function kinds.variants(rule, v, name, root)
  if type(v) ~= "table" or (next(v) ~= nil and vim.islist(v)) then
    return false
  end
  local known = vim.deepcopy(rule.common_order)
  for _, shape in ipairs(rule.pick) do
    for _, field in ipairs(shape.order) do
      if not vim.tbl_contains(known, field) then
        table.insert(known, field)
      end
    end
  end
  local problem = fields_of(function(field)
    return rule.common[field]
  end, rule.common_order, v, name, root, rule.extra == "refused" and known or nil)
  if problem then
    return true, problem
  end
  local picked, default
  for _, shape in ipairs(rule.pick) do
    if not shape.when then
      default = default or shape
    elseif not picked then
      for field, r in pairs(shape.when) do
        if not is_nil(v[field]) and not check(r, v[field], name, root) then
          picked = shape
        end
      end
    end
  end
  picked = picked or default
  if not picked then
    local field = rule.unmatched.field
    return true, wrong(name .. "." .. field, rule.unmatched.wanted, vim.inspect(v[field]))
  end
  return true, fields_of(function(field)
    return picked.fields[field]
  end, picked.order, v, name, root)
end

function kinds.either(rule, v, name, root)
  local inside
  for _, alternative in ipairs(rule.of) do
    local problem = check(alternative, v, name, root)
    if not problem then
      return true
    end
    -- A problem inside a table that fit (a field, an item, a name) says more than `wanted`.
    inside = inside or ((problem.key or problem.name ~= name) and problem or nil)
  end
  return inside ~= nil, inside
end

--- The problem with `v` (named `name`) against `rule`, or nil. `root`: the options whole, which a
--- rule may compare with (thinking's budget below max_tokens).
---@return TineOptionProblem?
function check(rule, v, name, root)
  if is_nil(v) then
    if rule.nullable or rule.optional then
      return nil
    end
    return wrong(name, rule.wanted, vim.inspect(v))
  end
  local fits, problem = kinds[rule.is](rule, v, name, root)
  if not fits then
    return wrong(name, rule.wanted, vim.inspect(v))
  end
  return problem
end

M.check = check

--- The problem in one line, as the host says it (node/rpc/checks.ts's `say`).
---@param p TineOptionProblem
function M.say(p)
  if p.key ~= nil then
    return ("%s has no %s (it takes %s)"):format(p.name, vim.inspect(p.key), table.concat(p.known, ", "))
  end
  return ("%s must be %s (got %s)"):format(p.name, p.wanted, p.shown)
end

return M
