-- The keys of a thread's display and input, mapped by task: `g?` lists them under these headings,
-- in this order (help.lua), so that the keys for one job stand together whatever keys they are.
-- What each does is in keys.lua, fork.lua, input_keys.lua (the input's keys that depend on the
-- thread's state) and the API.
local config = require("tine.config")
local fork = require("tine.fork")
local help = require("tine.help")
local input_keys = require("tine.input_keys")
local keys = require("tine.keys")
local review_keys = require("tine.review_keys")
local tine = require("tine")

local M = {}

--- The headings g? lists a thread's keys under.
M.TURN, M.TOOLS, M.READING, M.MESSAGE, M.FORK, M.WRITING, M.HELP =
  "The turn", "Tool calls", "Reading", "The message under the cursor", "This fork", "Writing", "Help"

--- Maps each key of `handlers` ({ lhs, fn, desc }: `fn` returns whether it acted on the line)
--- once, under `task`: the handlers given that key are tried in order; when none acts, the key is
--- fed back as Vim's own (with its count).
---@param buf integer
---@param handlers { [1]: string|false|nil, [2]: fun(): boolean, [3]: string }[]
---@param task string
local function line_keys(buf, handlers, task)
  local by_key, order = {}, {}
  for _, h in ipairs(handlers) do
    local lhs = h[1]
    if lhs and lhs ~= "" then
      if not by_key[lhs] then
        by_key[lhs] = {}
        table.insert(order, lhs)
      end
      table.insert(by_key[lhs], h)
    end
  end
  for _, lhs in ipairs(order) do
    local chain = by_key[lhs]
    local descs = vim.tbl_map(function(h)
      return h[3]
    end, chain)
    help.map(buf, "n", lhs, function()
      for _, h in ipairs(chain) do
        if h[2]() then
          return
        end
      end
      local count = vim.v.count > 0 and tostring(vim.v.count) or ""
      vim.api.nvim_feedkeys(count .. vim.api.nvim_replace_termcodes(lhs, true, false, true), "n", false)
    end, table.concat(descs, "; "), task)
  end
end

--- Whether thread `id` is a fork (one that can end into its parent: not a hand-off or a
--- compaction, a thread of its own); true when the host cannot say (the keys then say why not).
---@param id string
---@return boolean
local function is_fork(id)
  local ok, lineage = pcall(require("tine.host").request, "lineage", id)
  if not ok then
    return true
  end
  return lineage ~= nil and lineage ~= vim.NIL and lineage.relation == "fork"
end

--- The display's keys.
local function display_keys(display, input, id, km)
  local function map(modes, lhs, fn, desc, task)
    help.map(display, modes, lhs, fn, desc, task)
  end
  map("n", km.abort, function()
    tine.abort(id)
  end, "abort", M.TURN)
  map("n", km.retry, function()
    tine.retry(id)
  end, "send the failed turn again, or go on with one tine's stop cut off", M.TURN)

  map("n", km.approve, function()
    keys.line_action(id, "approve")
  end, "approve tool call", M.TOOLS)
  map("n", km.approve_always, function()
    keys.line_action(id, "approve_always")
  end, "approve this tool for the rest of the thread", M.TOOLS)
  if km.deny == "d" then
    -- `d` is also the start of `dd`, which cancels a queued message: on one, it waits for the second `d`.
    map("n", km.deny, function()
      keys.deny_or_cancel(id)
    end, "deny tool call (dd on a queued message: cancel it)", M.TOOLS)
  else
    map("n", km.deny, function()
      keys.line_action(id, "deny")
    end, "deny tool call", M.TOOLS)
    map("n", "dd", function()
      keys.cancel_queued(id)
    end, "cancel the queued message", M.TURN)
  end
  map("n", km.deny_reason, function()
    keys.deny_with_reason(id)
  end, "deny the tool call, saying why (the model is told)", M.TOOLS)

  map("n", km.toggle_detail, function()
    keys.line_action(id, "toggle")
  end, "expand/collapse", M.READING)
  -- Keys that act on what is under the cursor, several of which may be set to one key (both are
  -- <CR> by default): each is tried in turn; on a line none acts on, the key does what it always does.
  line_keys(display, {
    {
      km.open_change,
      function()
        return require("tine.code").open_change(id)
      end,
      "a changed file beside its state before the turn",
    },
    {
      km.edit_queued,
      function()
        return keys.edit_queued(id, input)
      end,
      "take the queued message back into the input",
    },
    {
      km.resolve_merge,
      function()
        return keys.resolve_merge(id, input)
      end,
      "ask the agent to resolve the merge's conflicts",
    },
  }, M.READING)
  -- On a hunk of an opened file diff: review it (off a hunk, Vim's own keys).
  for _, k in ipairs({
    { km.review_keep, "keep", "keep the hunk under the cursor (✓ reviewed)" },
    { km.review_undo, "undo", "undo the hunk under the cursor in the working file (↶)" },
    { km.review_comment, "comment", "comment on the hunk under the cursor (the model is told)" },
  }) do
    line_keys(display, {
      {
        k[1],
        function()
          return review_keys.act(id, k[2])
        end,
        k[3],
      },
    }, M.READING)
  end
  map("n", km.next_hunk, function()
    review_keys.jump(id, 1)
  end, "the next hunk of an opened file diff", M.READING)
  map("n", km.prev_hunk, function()
    review_keys.jump(id, -1)
  end, "the previous hunk", M.READING)
  map("n", km.go_to_parent, function()
    keys.go_to_parent(id)
  end, "go to parent thread", M.READING)
  map("n", km.go_to_fork, function()
    keys.go_to_fork(id)
  end, "go to the fork taken at this message", M.READING)

  map("n", km.fork_at_message, function()
    fork.fork_command({ bang = true })
  end, "fork at this message", M.MESSAGE)
  map("x", km.fork_at_message, function()
    fork.fork_selection()
  end, "fork quoting the selection", M.MESSAGE)
  map("n", km.edit_message, function()
    keys.edit_message(id)
  end, "edit your message in a fork (this thread stays as it is)", M.MESSAGE)
  map("n", km.label, function()
    keys.label_message(id)
  end, "label the message", M.MESSAGE)
  map("n", km.compact, function()
    keys.compact_message(id)
  end, "compact up to this message into a new thread (this one stays whole)", M.MESSAGE)

  map("n", km.fork_report, function()
    tine.fork_end("report", id)
  end, "fork: report to the parent and end", M.FORK)
  map("n", km.fork_promote, function()
    tine.fork_end("promote", id)
  end, "fork: promote into the parent", M.FORK)
  map("n", km.fork_discard, function()
    tine.fork_end("discard", id)
  end, "fork: discard", M.FORK)
  help.applies_when(display, M.FORK, function()
    return is_fork(id)
  end)

  -- The display cannot be edited: Vim's keys that would start typing there go to the input.
  for _, k in ipairs({ { "i", false }, { "I", false }, { "o", true }, { "O", true } }) do
    map("n", k[1], function()
      keys.go_to_input(input, k[2])
    end, "type in the input", M.WRITING)
  end
  map("n", km.help, function()
    help.show(display)
  end, "show these keys", M.HELP)
end

--- The input's keys (input_keys.lua adds those that depend on the thread's state).
local function input_keys_of(input, id, km)
  local function map(modes, lhs, fn, desc, task)
    help.map(input, modes, lhs, fn, desc, task)
  end
  map("n", km.send, function()
    keys.send_input(input)
  end, "send", M.TURN)
  map({ "n", "i" }, km.send_any, function()
    keys.send_input(input)
  end, "send (Insert mode too)", M.TURN)
  map({ "n", "i" }, km.abort, function()
    tine.abort(id)
  end, "abort", M.TURN)
  input_keys.attach(input, id, km, { turn = M.TURN, tools = M.TOOLS })
  map("n", km.help, function()
    help.show(input)
  end, "show these keys", M.HELP)
end

--- Maps the keys of thread `id`'s display and input.
---@param display integer
---@param input integer
---@param id string
function M.attach(display, input, id)
  local km = config.options.keymaps
  display_keys(display, input, id, km)
  input_keys_of(input, id, km)
end

return M
