-- Command definitions only: cheap at startup. The host starts on first use.
if vim.g.loaded_tine then return end
vim.g.loaded_tine = true

vim.api.nvim_create_user_command("Tine", function(args) require("tine").command(args) end, {
  nargs = "?",
  complete = function() return { "new", "send", "abort", "threads", "restart" } end,
  desc = "tine: toggle the chat sidebar (new, send, abort, threads, restart)",
})

vim.api.nvim_create_user_command("ForkThread", function(args) require("tine").fork_command(args) end, {
  nargs = "*",
  bang = true,
  desc = "tine: fork the thread in this window ([!]: at the message under the cursor)",
})
