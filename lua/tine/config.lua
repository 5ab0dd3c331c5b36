-- Every option, its default and what it does, in one place. `require("tine").setup(opts)` merges
-- the user's opts over these; the host receives the merged table.
local M = {}

---@class TineConfig
M.defaults = {
  -- Anthropic model and limits.
  model = "claude-sonnet-5-5",
  -- Thinking counts toward max_tokens: leave room for it (Sonnet 5.5 allows up to 128K).
  max_tokens = 32000,
  -- Sent as the request's `thinking`. Adaptive thinking (Claude 4.6 and later) with "summarized"
  -- display, so you can read it (collapsed under a `▸ Thinking` line). Others: { type =
  -- "between_tools" } (Sonnet 5.5: no thinking before the first tool call), { type = "enabled",
  -- budget_tokens = 4096 } (models before 4.6), or false to send none (the model's default).
  thinking = { type = "adaptive", display = "summarized" },
  -- "low" | "medium" | "high" | "xhigh" | "max" (sent as output_config.effort); nil: the model's default.
  effort = nil,
  -- Let the model use Anthropic's server-side web search.
  web_search = false,
  -- Client tools that wait for your approval in the display buffer before they run.
  tools_needing_approval = { "bash_command", "edit_file" },
  system_prompt = "You are a coding assistant working inside Neovim. Be concise. "
    .. "Use the tools to read and change files in the project when that helps.",
  -- Points the SDK elsewhere; ANTHROPIC_BASE_URL in the environment does the same. The API key is
  -- read only from the environment (ANTHROPIC_API_KEY), never from here.
  base_url = nil,
  -- Seconds a bash_command may run before it is stopped (the model is told).
  bash_timeout = 120,
  -- Environment variables kept from every tool process, besides ANTHROPIC_API_KEY (always removed).
  tool_env_deny = {},
  -- Threads are written here as they happen (one JSONL transcript per thread, per project).
  -- nil: stdpath("data") .. "/tine".
  data_dir = nil,
  -- false: threads live only in memory and nothing is written to disk.
  persist = true,
  -- Where a fork opens: "vsplit" | "split" | "tab" | "replace".
  fork_open = "vsplit",
  sidebar = { side = "right", width = 80, input_height = 8 },
  -- First delay when a mid-stream overloaded/rate-limit error is retried (doubles each time).
  retry_delay_ms = 1000,
  -- The Node binary that runs the host.
  node = "node",
  keymaps = {
    send = "<CR>", -- input buffer, normal mode
    abort = "<C-c>", -- input and display buffers
    toggle_detail = "<Tab>", -- display: expand/collapse thinking, tool results, search results
    approve = "a", -- display: approve the tool call under the cursor (or the first pending)
    deny = "d",
    fork_at_message = "F", -- display: fork here (visual: quote the selection in the fork)
    go_to_parent = "gp", -- display of a fork: jump to where it branched
    list_open = "<CR>", -- thread list
    list_fork = "f",
    list_rename = "r",
    list_delete = "D", -- asks for confirmation
  },
}

M.options = vim.deepcopy(M.defaults)

function M.setup(opts)
  opts = opts or {}
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts)
  -- `thinking` is one API value, not a set of options: the user's replaces the default whole.
  if opts.thinking ~= nil then M.options.thinking = opts.thinking end
  return M.options
end

return M
