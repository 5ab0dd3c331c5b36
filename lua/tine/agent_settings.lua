-- `:Tine model` in a thread run by an ACP agent: the settings the agent offers (its mode, model,
-- effort, …, in its own words), one picked, then its value; `:Tine model <value>` sets the value
-- directly (in the agent's model setting when it offers it there, else the first setting that
-- does). The host sets it on the agent's session and keeps it with the thread.
local host = require("tine.host")
local util = require("tine.util")

local err, guarded = util.err, util.guarded

local M = {}

---@class tine.AgentSettingOption
---@field value string
---@field name string
---@field description string|vim.NIL

---@class tine.AgentSetting
---@field id string
---@field name string
---@field category string|vim.NIL
---@field current string|vim.NIL
---@field options tine.AgentSettingOption[]

--- The option of `setting` whose value is `value`, or nil.
---@param setting tine.AgentSetting
---@param value string|vim.NIL
local function option_of(setting, value)
  for _, o in ipairs(setting.options) do
    if o.value == value then
      return o
    end
  end
end

---@param id string
---@param setting tine.AgentSetting
---@param value string
local function choose(id, setting, value)
  guarded(host.request, "choose_agent_setting", id, setting.id, value)
end

--- `value` set in the setting offering it: the agent's model setting first.
---@param id string
---@param settings tine.AgentSetting[]
---@param value string
local function choose_value(id, settings, value)
  local ordered = {}
  for _, s in ipairs(settings) do
    table.insert(ordered, s.category == "model" and 1 or #ordered + 1, s)
  end
  for _, s in ipairs(ordered) do
    if option_of(s, value) then
      return choose(id, s, value)
    end
  end
  err(("tine: the agent offers no setting with the value %q"):format(value))
end

---@param id string thread id
---@param settings tine.AgentSetting[]
---@param value? string
function M.pick(id, settings, value)
  if #settings == 0 then
    return err("tine: this thread's agent offers no settings")
  end
  if value then
    return choose_value(id, settings, value)
  end
  local function now_name(s)
    local o = option_of(s, s.current)
    return o and o.name or (s.current ~= vim.NIL and s.current or "?")
  end
  vim.ui.select(settings, {
    prompt = "Agent setting",
    format_item = function(s)
      return ("%s: %s"):format(s.name, now_name(s))
    end,
  }, function(setting)
    if not setting then
      return
    end
    vim.ui.select(setting.options, {
      prompt = setting.name,
      format_item = function(o)
        local text = o.name
        if o.description ~= vim.NIL and o.description ~= "" and o.description ~= o.name then
          text = text .. " — " .. o.description
        end
        return o.value == setting.current and text .. "  (now)" or text
      end,
    }, function(option)
      if option then
        choose(id, setting, option.value)
      end
    end)
  end)
end

return M
