-- The keys of a thread's input that answer the thread only in one state of it, and are Vim's
-- own otherwise: while a tool call waits for approval, `a` `A` `d` `D` answer it; after an error,
-- with the input empty, `R` sends the failed turn again. The host tells the state (set_pending,
-- set_failed, through host_api.lua); buffers.lua attaches the keys when it makes the input.
local keys = require("tine.keys")

local M = {}

--- `key` in the input buffer's Normal mode: approves/denies (`answer`) while a tool waits for
--- approval, and is the key it always was otherwise (`a` appends, `d` deletes).
local function approval_key(input, lhs, answer, desc)
  if not lhs or lhs == "" then
    return
  end
  vim.keymap.set(
    "n",
    lhs,
    function()
      if vim.b[input].tine_pending then
        vim.schedule(answer)
        return "<Ignore>"
      end
      return lhs
    end,
    { buffer = input, expr = true, nowait = false, silent = true, desc = "tine: " .. desc .. " (while a tool waits)" }
  )
end

--- `key` in the input buffer's Normal mode: sends the failed turn again while the thread stopped
--- on an error and the input is empty (anything typed there is the user's next message: `R` is
--- then Replace mode as always).
local function retry_key(input, id, lhs)
  if not lhs or lhs == "" then
    return
  end
  vim.keymap.set("n", lhs, function()
    local lines = vim.api.nvim_buf_get_lines(input, 0, -1, false)
    if vim.b[input].tine_failed and #lines == 1 and lines[1] == "" then
      vim.schedule(function()
        require("tine").retry(id)
      end)
      return "<Ignore>"
    end
    return lhs
  end, {
    buffer = input,
    expr = true,
    nowait = false,
    silent = true,
    desc = "tine: send the failed turn again (after an error, the input empty)",
  })
end

--- Sets the input's state keys for thread `id` (`km`: the keymaps).
---@param input integer
---@param id string
---@param km table
function M.attach(input, id, km)
  for _, a in ipairs({
    { km.approve, "approve", "approve the tool call" },
    { km.approve_always, "approve_always", "approve this tool for the rest of the thread" },
    { km.deny, "deny", "deny the tool call" },
  }) do
    approval_key(input, a[1], function()
      keys.line_action(id, a[2])
    end, a[3])
  end
  approval_key(input, km.deny_reason, function()
    keys.deny_with_reason(id)
  end, "deny the tool call, saying why")
  retry_key(input, id, km.retry)
end

--- The host says whether a tool of the thread waits for approval. `a`/`d` in the input then
--- answer it; a thread not in sight says so once.
function M.set_pending(display, input, pending, title, tell)
  if not vim.api.nvim_buf_is_valid(input) then
    return
  end
  vim.b[input].tine_pending = pending
  if pending and tell then
    local visible = false
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      local b = vim.api.nvim_win_get_buf(w)
      if b == display or b == input then
        visible = true
      end
    end
    if not visible then
      vim.notify(("tine: %s waits for your approval of a tool call"):format(title), vim.log.levels.WARN)
    end
  end
end

--- The host says whether the thread stopped on an error: `R` in an empty input then retries.
function M.set_failed(input, failed)
  if vim.api.nvim_buf_is_valid(input) then
    vim.b[input].tine_failed = failed
  end
end

return M
