-- tine's buffers: a thread's display and input, and the thread list. Made when the host asks
-- (host_api.lua), with their keys (a thread's in thread_keys.lua; what the keys do is in keys.lua,
-- fork.lua, list.lua and the API), renamed, closed, and told when the host dies. Their windows
-- are ui.lua's job. A buffer and its keys are made together, each key with the description and
-- the task g? shows it under (help.lua), so that no buffer exists without its keys.
local complete = require("tine.complete")
local config = require("tine.config")
local display_markup = require("tine.display_markup")
local help = require("tine.help")
local list = require("tine.list")
-- Its autocmds give each window that shows a thread's buffer that thread's status line.
require("tine.statusline")
local thread_keys = require("tine.thread_keys")
local ui = require("tine.ui")

local M = {}

local function scratch(name, filetype)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = filetype
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

--- Buffers unloaded or wiped by the user (:bd, :bw) are recreated by the host on the next show:
--- it is told once the autocmd is over, with the unsent input so nothing typed is lost.
local function watch(buf, id, display, input)
  vim.api.nvim_create_autocmd("BufUnload", {
    buffer = buf,
    once = true,
    callback = function()
      if vim.b[buf].tine_closing or vim.v.exiting ~= vim.NIL then
        return
      end
      local draft = vim.api.nvim_buf_is_valid(input) and vim.api.nvim_buf_get_lines(input, 0, -1, false) or {}
      vim.schedule(function()
        -- The pair goes together (its names are freed for the new pair), then the host forgets it.
        M.close_thread_buffers(display, input)
        if require("tine.host").running() then
          pcall(require("tine.host").request, "buffers_gone", id, draft)
        end
      end)
    end,
  })
end

--- Input drafts kept across :Tine restart (the old host, which kept them, is gone), by thread id.
local kept_drafts = {}

--- Keeps `lines` as thread `id`'s unsent input until its buffers are made again.
---@param id string
---@param lines string[]
function M.keep_draft(id, lines)
  if #lines > 1 or (lines[1] or "") ~= "" then
    kept_drafts[id] = lines
  end
end

--- Takes the kept drafts of threads the new host does not know (never stored: no message yet).
---@param known table<string, boolean> the ids the new host knows
---@return table<string, string[]> draft by thread id
function M.take_drafts_of_unknown(known)
  local out = {}
  for id, lines in pairs(kept_drafts) do
    if not known[id] then
      out[id] = lines
      kept_drafts[id] = nil
    end
  end
  return out
end

function M.create_thread_buffers(id, num, title, draft)
  if (not draft or #draft == 0) and kept_drafts[id] then
    draft = kept_drafts[id]
  end
  kept_drafts[id] = nil
  local names = require("tine.names")
  local display_name, input_name = names.thread(num, title, "display"), names.thread(num, title, "input")
  -- The first thread takes over the buffers `:Tine` showed while the host started.
  local claimed = require("tine.placeholder").claim(display_name, input_name)
  local display = claimed and claimed.display or scratch(display_name, "markdown")
  vim.bo[display].modifiable = false
  local input = claimed and claimed.input or scratch(input_name, "markdown")
  vim.b[display].tine_thread = id
  vim.b[input].tine_thread = id
  vim.b[display].tine_input = input
  vim.b[input].tine_display = display
  if draft and #draft > 0 then
    vim.api.nvim_buf_set_lines(input, 0, -1, false, draft)
  end
  watch(display, id, display, input)
  watch(input, id, display, input)
  -- Replies are markdown: their markup (`**bold**`, `` `code` ``) is hidden where the filetype's
  -- highlighting says so, in whatever window shows the display (for this buffer only: :setlocal).
  vim.api.nvim_create_autocmd("BufWinEnter", {
    buffer = display,
    callback = function()
      vim.opt_local.conceallevel = 2
      -- Tree-sitter may have started highlighting it since (a user's autocmd).
      display_markup.show_brackets(display)
    end,
  })
  display_markup.show_brackets(display)
  -- A display `:Tine` showed before the host started (claimed above) is in a window already.
  for _, win in ipairs(vim.fn.win_findbuf(display)) do
    vim.api.nvim_set_option_value("conceallevel", 2, { scope = "local", win = win })
  end
  complete.attach(input)

  thread_keys.attach(display, input, id)
  return { display = display, input = input }
end

function M.create_list_buffer()
  local km = config.options.keymaps
  local buf = scratch("tine://threads", "tine-threads")
  vim.bo[buf].modifiable = false
  local task = list.TASKS
  local function map(lhs, fn, desc, under)
    help.map(buf, "n", lhs, fn, desc, under)
  end
  map(km.list_open, function()
    list.open_from_list()
  end, "open thread (an interrupted one: offers to go on)", task.open)
  map(km.list_fork, function()
    list.fork_from_list()
  end, "fork thread (a count, 3f: that many at once, each in a worktree)", task.fork)
  map(km.list_worktree, function()
    list.fork_from_list({ worktree = true })
  end, "fork thread into a worktree of its own", task.fork)
  map(km.list_background, function()
    list.background_from_list()
  end, "background fork (reports back)", task.fork)
  map(km.abort, function()
    list.cancel_from_list()
  end, "cancel a waiting fork / abort", task.fork)
  map(km.fork_report, function()
    list.fork_end_from_list("report")
  end, "fork: report to the parent and end", task.fork)
  map(km.fork_promote, function()
    list.fork_end_from_list("promote")
  end, "fork: promote into the parent", task.fork)
  map(km.fork_discard, function()
    list.fork_end_from_list("discard")
  end, "fork: discard", task.fork)
  map(km.list_rename, function()
    list.rename_from_list()
  end, "rename thread", task.edit)
  map(km.list_delete, function()
    list.delete_from_list()
  end, "delete thread", task.edit)
  map(km.help, function()
    help.show(buf)
  end, "show these keys", task.help)
  return buf
end

--- The buffers' names follow the thread's title (a terminal's one buffer, or the display and input).
function M.set_title(display, num, title)
  if not vim.api.nvim_buf_is_valid(display) then
    return
  end
  local names = require("tine.names")
  local input = vim.b[display].tine_input
  local renames = input == display and { { display, "claude" } } or { { display, "display" }, { input, "input" } }
  for _, r in ipairs(renames) do
    local buf = r[1]
    if type(buf) == "number" and vim.api.nvim_buf_is_valid(buf) then
      local old = vim.api.nvim_buf_get_name(buf)
      pcall(vim.api.nvim_buf_set_name, buf, names.thread(num, title, r[2]))
      -- Renaming leaves an unloaded buffer holding the old name (as `:file` does): wipe it.
      for _, b in ipairs(vim.api.nvim_list_bufs()) do
        if b ~= buf and not vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) == old then
          pcall(vim.api.nvim_buf_delete, b, { force = true })
        end
      end
    end
  end
end

--- A deleted thread's buffers go; windows showing them keep their place with another buffer.
function M.close_thread_buffers(display, input)
  for _, buf in ipairs({ input, display }) do
    if vim.api.nvim_buf_is_valid(buf) then
      vim.b[buf].tine_closing = true
      for _, win in ipairs(vim.fn.win_findbuf(buf)) do
        if #vim.api.nvim_list_wins() > 1 then
          pcall(vim.api.nvim_win_close, win, true)
        else
          vim.api.nvim_win_set_buf(win, vim.api.nvim_create_buf(true, false))
        end
      end
      pcall(vim.api.nvim_buf_delete, buf, { force = true })
    end
  end
end

--- After a tool wrote `path`: a buffer holding it is reloaded, unless it has unsaved changes.
---@param path string
---@param by? string what wrote it (default: edit_file)
function M.file_written(path, by)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if
      vim.api.nvim_buf_is_loaded(buf)
      and vim.api.nvim_buf_get_name(buf) ~= ""
      and vim.fn.resolve(vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":p")) == vim.fn.resolve(path)
    then
      if vim.bo[buf].modified then
        vim.notify(
          ("tine: %s was changed by %s, but your buffer has unsaved changes: it was not reloaded (:e! to take the file's)"):format(
            vim.fn.fnamemodify(path, ":~:."),
            by or "edit_file"
          ),
          vim.log.levels.WARN
        )
      else
        vim.api.nvim_buf_call(buf, function()
          vim.cmd("silent! edit!")
        end)
      end
    end
  end
end

--- Called when the host dies: thread buffers no longer update; say so in each, and in the list.
function M.host_died()
  require("tine.host_api").stop_spinners()
  require("tine.quit").let_go()
  local note = "⚠ The tine host exited: :Tine restart starts a new one (stored threads come back)."
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local is_list = vim.api.nvim_buf_get_name(buf) == "tine://threads"
    if (vim.b[buf].tine_thread and not require("tine.names").is_input(buf)) or is_list then
      vim.bo[buf].modifiable = true
      if is_list then
        vim.api.nvim_buf_set_lines(buf, 0, 0, false, { note })
      else
        vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "", note })
      end
      vim.bo[buf].modifiable = false
    end
  end
end

return M
