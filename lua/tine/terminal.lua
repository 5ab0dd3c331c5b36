-- A Claude Code thread's one buffer: a terminal running the CLI, and the first prompt typed into
-- it once the CLI can take it. The thread's runner and its session are the host's.
local M = {}

--- A Claude Code thread's buffer name: its number and title, marked as the list marks it.
---@param num integer
---@param title string
function M.name(num, title)
  return require("tine.names").thread(num, title, "claude")
end

--- Whether the CLI shows its input box: its prompt line (`❯`) under a rule, or, in an older
--- CLI, a footer naming shift+tab (a narrow terminal leaves that footer out).
---@param text string the terminal's lines, joined with newlines
function M.input_box_shown(text)
  return text:find("────\n❯", 1, true) ~= nil or text:find("shift+tab", 1, true) ~= nil
end

--- A Claude Code thread: a terminal running `argv` in folder `cwd` (the project's, or a worktree
--- fork's). `prompt` is typed into the CLI once its input box is there.
function M.create_terminal_thread(id, num, title, argv, prompt, cwd)
  local buf = vim.api.nvim_create_buf(false, false)
  vim.b[buf].tine_thread = id
  vim.b[buf].tine_input = buf
  vim.b[buf].tine_display = buf
  local job
  -- Started in a window of a real size (the terminal takes its size from it), closed after:
  -- the window the thread is shown in resizes it then.
  local float = vim.api.nvim_open_win(buf, false, {
    relative = "editor",
    row = 0,
    col = 0,
    style = "minimal",
    width = math.max(40, math.min(vim.o.columns - 2, 100)),
    height = math.max(10, vim.o.lines - 4),
  })
  vim.api.nvim_win_call(float, function()
    local opts = {
      cwd = cwd,
      on_exit = function()
        vim.schedule(function()
          pcall(require("tine.host").request, "terminal_exited", id)
        end)
      end,
    }
    if vim.fn.has("nvim-0.11") == 1 then
      opts.term = true
      job = vim.fn.jobstart(argv, opts)
    else
      job = vim.fn.termopen(argv, opts)
    end
  end)
  vim.api.nvim_win_close(float, true)
  vim.b[buf].tine_job = job
  pcall(vim.api.nvim_buf_set_name, buf, M.name(num, title))
  if prompt and prompt ~= "" then
    -- Typed once the CLI's input box is there, then entered once the text shows in it (keys sent
    -- while the CLI still draws its start-up screen are lost).
    local text = function()
      return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
    end
    local phase, ticks = "wait", 0
    local timer = vim.uv.new_timer()
    local function stop()
      timer:stop()
      timer:close()
    end
    timer:start(
      200,
      100,
      vim.schedule_wrap(function()
        ticks = ticks + 1
        if not vim.api.nvim_buf_is_valid(buf) or ticks > 600 then
          return stop()
        end
        if phase == "wait" and M.input_box_shown(text()) then
          phase, ticks = "typed", 0
          vim.fn.chansend(job, prompt)
        elseif phase == "typed" then
          if text():find(prompt:sub(1, 20), 1, true) then
            vim.fn.chansend(job, "\r")
            stop()
          elseif ticks % 50 == 0 then
            -- Not shown after 5 s: lost (keys sent while the CLI drew), typed again. Not sooner: a
            -- busy CLI showing the first copy late would take both.
            vim.fn.chansend(job, prompt)
          end
        end
      end)
    )
  end
  return { display = buf, input = buf }
end

return M
