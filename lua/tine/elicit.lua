-- What an MCP server asks the user in the middle of a tool call (elicitation, form mode): its message,
-- then its form field by field (vim.ui.input for text and numbers, filled in with the server's
-- default; vim.ui.select for yes/no, a choice, several choices), then accept, decline or cancel.
-- The host holds the question (node/mcp/elicitations.ts) and checks the answer against the form; an
-- answer that does not fit is said and the form asked again, with what was entered. A thread in
-- sight shows its question at once; one that is not (a background fork) waits, as for an approval,
-- until the user opens it. Nothing is ever answered for the user: <Esc> anywhere answers "cancel".
local host = require("tine.host")
local util = require("tine.util")

local M = {}

--- Threads with a question waiting, by id: their title.
local waiting = {}
--- Threads whose form is on screen now.
local asking = {}

local null = util.null

--- A field's prompt: its title, whether it is required, its description.
local function label(field)
  local text = field.title .. (field.required and " (required)" or "")
  if field.description ~= "" then
    text = text .. " — " .. field.description
  end
  return text
end

local LEAVE_EMPTY = "(leave empty)"

--- Asks one field; `done(value, cancelled)`: nil value leaves it empty.
local function ask_field(field, current, done)
  local kind = field.kind
  if kind == "string" or kind == "number" or kind == "integer" then
    local hint = kind == "string" and (null(field.format) and "" or (" [" .. field.format .. "]")) or (" [" .. kind .. "]")
    vim.ui.input({ prompt = label(field) .. hint .. ": ", default = current ~= nil and tostring(current) or nil }, function(text)
      if text == nil then
        return done(nil, true)
      end
      done(text ~= "" and text or nil)
    end)
  elseif kind == "boolean" or kind == "choice" then
    local offered = kind == "boolean" and { { value = true, title = "yes" }, { value = false, title = "no" } } or field.options
    -- What is filled in now comes first (picking the first item keeps it), the rest in the server's order.
    local items = {}
    for _, item in ipairs(offered) do
      table.insert(items, item.value == current and 1 or #items + 1, item)
    end
    if not field.required then
      table.insert(items, { value = nil, title = LEAVE_EMPTY })
    end
    vim.ui.select(items, {
      prompt = label(field),
      format_item = function(item)
        return item.title .. ((current ~= nil and item.value == current) and " (default)" or "")
      end,
    }, function(item)
      if item == nil then
        return done(nil, true)
      end
      done(item.value)
    end)
  elseif kind == "choices" then
    local chosen = {}
    for _, v in ipairs(current or {}) do
      chosen[v] = true
    end
    local function again()
      local items = {}
      for _, o in ipairs(field.options) do
        table.insert(items, o)
      end
      table.insert(items, { done = true, title = "Done" })
      vim.ui.select(items, {
        prompt = label(field) .. " (pick to check or uncheck, then Done)",
        format_item = function(item)
          return item.done and item.title or ((chosen[item.value] and "[x] " or "[ ] ") .. item.title)
        end,
      }, function(item)
        if item == nil then
          return done(nil, true)
        end
        if not item.done then
          chosen[item.value] = not chosen[item.value] or nil
          return again()
        end
        local list = {}
        for _, o in ipairs(field.options) do
          if chosen[o.value] then
            table.insert(list, o.value)
          end
        end
        done(list)
      end)
    end
    again()
  end
end

local open

--- Sends the answer; an accepted form that does not fit is asked again with what was entered.
local function send(id, question, action, values)
  local ok, reply = util.guarded(host.request, "elicitation_answer", id, question.key, action, values)
  asking[id] = nil
  if not ok then
    return
  end
  if reply.status == "invalid" then
    vim.notify("tine: " .. reply.problem .. ": answer again", vim.log.levels.WARN)
    return M.fill(id, question, values)
  elseif reply.status == "gone" then
    vim.notify(
      ("tine: %s no longer waits for this answer (it withdrew the question, or its call ended)"):format(question.server),
      vim.log.levels.WARN
    )
  end
  -- Another question may wait.
  open(id)
end

--- Asks every field of `question` in turn, starting from `values` (what was entered, else the defaults).
---@param id string the thread
---@param question table the host's `elicitation_next`
---@param values table field name -> value
function M.fill(id, question, values)
  asking[id] = true
  local fields = question.fields
  local function step(i)
    if i > #fields then
      return send(id, question, "accept", values)
    end
    local field = fields[i]
    ask_field(field, values[field.name], function(value, cancelled)
      if cancelled then
        return send(id, question, "cancel", vim.empty_dict())
      end
      values[field.name] = value
      step(i + 1)
    end)
  end
  step(1)
end

--- Shows thread `id`'s oldest waiting question, if any: its message, then its form.
---@param id string
open = function(id)
  if asking[id] then
    return
  end
  local ok, question = util.guarded(host.request, "elicitation_next", id)
  if not ok or null(question) then
    waiting[id] = nil
    return
  end
  asking[id] = true
  local fill = #question.fields > 0 and "Fill in the form" or "Accept"
  vim.ui.select({ fill, "Decline", "Cancel" }, {
    prompt = ("MCP server %s asks: %s"):format(question.server, (question.message:gsub("%s*\n%s*", " "))),
  }, function(choice)
    if choice == nil or choice == "Cancel" then
      return send(id, question, "cancel", vim.empty_dict())
    elseif choice == "Decline" then
      return send(id, question, "decline", vim.empty_dict())
    end
    local values = vim.empty_dict()
    for _, field in ipairs(question.fields) do
      if not null(field.default) then
        values[field.name] = field.default
      end
    end
    M.fill(id, question, values)
  end)
end
M.open = open

--- The host says a question waits for thread `id`: shown now when the thread is in sight, else said
--- once, and shown when the thread is opened.
---@param id string
---@param title string
function M.waiting(id, title)
  waiting[id] = title
  vim.schedule(function()
    if util.thread_in_tab(id) then
      open(id)
    else
      vim.notify(
        ("tine: %s waits for your answer to an MCP server's question: open it from :Tine threads"):format(title),
        vim.log.levels.WARN
      )
    end
  end)
end

vim.api.nvim_create_autocmd("BufEnter", {
  group = vim.api.nvim_create_augroup("tine.elicit", { clear = true }),
  callback = function(ev)
    local id = vim.b[ev.buf].tine_thread
    if id and waiting[id] then
      vim.schedule(function()
        open(id)
      end)
    end
  end,
})

return M
