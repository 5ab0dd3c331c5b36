-- Bringing what is in a buffer into a thread: `:Tine add` puts the current file in the active
-- thread's input as `@file:<path>`, `:'<,'>Tine add` the lines as a quoted block headed by their
-- place (`path:from-to`), `:Tine ask {question}` sends the same with the question at once, and
-- the `add` key (keymaps.add) runs `:Tine add` from any buffer. The cursor stays where the user
-- is: what was added shows in the sidebar's input.
local host = require("tine.host")
local keys = require("tine.keys")
local ui = require("tine.ui")
local util = require("tine.util")

local M = {}

---@alias TineRange { from: integer, to: integer } 1-based lines, inclusive

--- The buffer's name as the project sees it: relative to the working directory when inside it.
---@param buf integer
---@return string?
local function path_of(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  return name ~= "" and vim.fn.fnamemodify(name, ":.") or nil
end

---@param buf integer
local function refuse_tine_buffer(buf)
  local b = vim.b[buf]
  if b.tine_thread or b.tine_display or b.tine_input or vim.api.nvim_buf_get_name(buf):match("^tine://") then
    error("tine: :Tine add and :Tine ask take what is in another buffer, not in tine's own", 0)
  end
end

--- `buf` as a mention: `@file:<path>`. A buffer that is no file on disk cannot be one.
---@param buf integer
---@return string
local function file_mention(buf)
  refuse_tine_buffer(buf)
  local path = path_of(buf)
  if not path or vim.bo[buf].buftype ~= "" then
    error("tine: this buffer is not a file: select lines and :'<,'>Tine add them (or write @buf in the input)", 0)
  end
  return "@file:" .. path
end

--- Lines `range` of `buf` as a fenced block headed by where they are (`node/app.ts:10-24`), in the
--- buffer's language; the fence is longer than any run of backticks the lines start with.
---@param buf integer
---@param range TineRange
---@return string[]
local function quoted_block(buf, range)
  refuse_tine_buffer(buf)
  local lines = vim.api.nvim_buf_get_lines(buf, range.from - 1, range.to, false)
  local fence = "```"
  for _, l in ipairs(lines) do
    local run = l:match("^%s*(`+)")
    if run and #run >= #fence then
      fence = ("`"):rep(#run + 1)
    end
  end
  local where = range.from == range.to and tostring(range.from) or ("%d-%d"):format(range.from, range.to)
  local block = { ("%s:%s"):format(path_of(buf) or "[No Name]", where), fence .. vim.bo[buf].filetype }
  vim.list_extend(block, lines)
  table.insert(block, fence)
  return block
end

--- What `:Tine add`/`:Tine ask` take from the current buffer: the lines of `range` as a block, or
--- without one the file as a mention.
---@param range TineRange?
---@return string[] lines
---@return boolean inline a mention, to follow the text on the input's last line
local function context(range)
  local buf = vim.api.nvim_get_current_buf()
  if range then
    return quoted_block(buf, range), false
  end
  return { file_mention(buf) }, true
end

--- Appends `lines` to the input: a mention after the last line's text, a block below the text
--- with an empty line between, and an empty line after it for what the user writes next.
---@param input integer
---@param lines string[]
---@param inline boolean
local function append(input, lines, inline)
  local have = vim.api.nvim_buf_get_lines(input, 0, -1, false)
  local empty = #have == 1 and have[1] == ""
  local last = have[#have]
  if inline and not empty then
    local joined = last == "" and lines[1] or (last .. " " .. lines[1])
    vim.api.nvim_buf_set_lines(input, #have - 1, #have, false, { joined })
    return
  end
  local out = vim.list_slice(lines)
  if not inline then
    table.insert(out, "")
  end
  if empty then
    vim.api.nvim_buf_set_lines(input, 0, -1, false, out)
    return
  end
  if last ~= "" then
    table.insert(out, 1, "")
  end
  vim.api.nvim_buf_set_lines(input, #have, #have, false, out)
end

--- Shows the thread in the sidebar when no window of this tab shows its input, and scrolls the
--- input's windows to its end; the user's window keeps the focus.
---@param t { display: integer, input: integer }
local function reveal(t)
  local from = vim.api.nvim_get_current_win()
  local here = vim.tbl_filter(function(w)
    return vim.api.nvim_win_get_tabpage(w) == vim.api.nvim_get_current_tabpage()
  end, vim.fn.win_findbuf(t.input))
  if #here == 0 then
    ui.show(t.display, t.input)
    here = { ui.sidebar().input }
  end
  for _, w in ipairs(here) do
    pcall(vim.api.nvim_win_set_cursor, w, { vim.api.nvim_buf_line_count(t.input), 0 })
  end
  if vim.api.nvim_win_is_valid(from) then
    vim.api.nvim_set_current_win(from)
  end
end

--- `:Tine add` (with a range, `:'<,'>Tine add`): the file, or the lines, into the active thread's
--- input (a first thread is made when there is none). Raises on failure.
---@param range TineRange?
function M.add(range)
  local lines, inline = context(range)
  local t = host.request("active_buffers")
  append(t.input, lines, inline)
  reveal(t)
end

--- `:Tine ask {question}`: the file (or with a range the lines) and the question, sent at once to
--- the active thread through the input's own entry. A message the host refuses goes into the
--- input, so nothing is lost. Without a question, one is asked for.
---@param question string
---@param range TineRange?
function M.ask(question, range)
  local ok, lines = pcall(context, range)
  if not ok then
    return util.err(lines)
  end
  if vim.trim(question) == "" then
    return vim.ui.input({ prompt = "Ask: " }, function(answer)
      if answer and vim.trim(answer) ~= "" then
        M.send(lines, answer)
      end
    end)
  end
  M.send(lines, question)
end

--- Sends the context `lines` and the question below them (the model reads a question best after
--- what it is about).
---@param lines string[]
---@param question string
function M.send(lines, question)
  local got, t = util.guarded(host.request, "active_buffers")
  if not got then
    return
  end
  local text = table.concat(lines, "\n") .. "\n\n" .. vim.trim(question)
  reveal(t)
  if not keys.send_text(t.id, t.input, text) then
    append(t.input, vim.split(text, "\n"), false)
    vim.notify("tine: the message was not sent: it is in the thread's input", vim.log.levels.WARN)
  end
end

--- The `add` key, in any buffer (set by setup()): `:Tine add` on the selection in Visual mode, on
--- the file in Normal mode. A second setup() moves it.
local mapped = nil

---@param lhs string|false
function M.map_key(lhs)
  if mapped then
    pcall(vim.keymap.del, "x", mapped)
    pcall(vim.keymap.del, "n", mapped)
    mapped = nil
  end
  if not lhs or lhs == "" then
    return
  end
  -- `:` in Visual mode gives the command the selection's lines.
  vim.keymap.set("x", lhs, ":Tine add<CR>", { silent = true, desc = "tine: add the selection to the thread's input" })
  vim.keymap.set("n", lhs, "<Cmd>Tine add<CR>", { silent = true, desc = "tine: add this file to the thread's input" })
  mapped = lhs
end

return M
