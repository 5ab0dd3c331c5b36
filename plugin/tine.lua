-- Command definitions only: cheap at startup. The host starts on first use.
if vim.g.loaded_tine then
  return
end
vim.g.loaded_tine = true

vim.api.nvim_create_user_command("Tine", function(args)
  require("tine.commands").command(args)
end, {
  nargs = "*",
  bang = true,
  range = true, -- `:'<,'>Tine add` / `:'<,'>Tine ask`: the selection's lines
  complete = function(lead, line, pos)
    if line:match("^%S*Tine!?%s+ask%s") and lead:match("^@") then
      return require("tine.complete").cmdline(lead)
    end
    if line:match("^%S+%s+fork%s+%S*$") then
      return vim.tbl_filter(function(c)
        return c:find(lead, 1, true) == 1
      end, { "discard", "promote", "report" })
    end
    if line:match("^%S+%s+restore%s+%S*$") then
      return vim.tbl_filter(function(c)
        return c:find(lead, 1, true) == 1
      end, { "undo" })
    end
    if line:match("^%S+%s+merge%s+%S*$") then
      return vim.tbl_filter(function(c)
        return c:find(lead, 1, true) == 1
      end, { "done", "done!" })
    end
    if line:match("^%S+%s+agent%s+%S*$") then
      local names = vim.tbl_keys(require("tine.config").options.acp_agents or {})
      table.sort(names)
      return vim.tbl_filter(function(c)
        return c:find(lead, 1, true) == 1
      end, names)
    end
    -- :Tine diff [a [b]], :Tine compare [N]: this project's threads, `N  title`.
    local sub, ref_args = line:sub(1, pos):match("^%S+%s+(%a+)%s(.*)$")
    local most = ({ diff = 2, compare = 1 })[sub]
    if most then
      return require("tine.thread_refs").complete(ref_args:sub(1, #ref_args - #lead), lead, most)
    end
    if line:match("^%S+%s+%S+%s") then
      return {}
    end
    return vim.tbl_filter(function(c)
      return c:find(lead, 1, true) == 1
    end, {
      "new",
      "send",
      "abort",
      "retry",
      "threads",
      "resume",
      "rename",
      "fork",
      "diff",
      "restore",
      "merge",
      "claude",
      "agent",
      "import",
      "export",
      "add",
      "ask",
      "restart",
      "mcp",
      "compare",
      "compact",
      "model",
      "review",
    })
  end,
  desc = "tine: toggle the chat sidebar (new, send, abort, threads[!], resume, rename, add, ask, restart)",
})

vim.api.nvim_create_user_command("ForkThread", function(args)
  require("tine.fork").fork_command(args)
end, {
  nargs = "*",
  bang = true,
  desc = "tine: fork the thread in this window ([!]: at the message under the cursor)",
  -- The flags, before the prompt; the prompt is free text.
  complete = function(lead, line)
    if not lead:match("^%-") or line:match("^%S+%s+.-[^-%s]%S*%s") then
      return {}
    end
    return vim.tbl_filter(function(flag)
      return vim.startswith(flag, lead)
    end, { "--bg", "--wait", "--worktree", "--unattended", "--n" })
  end,
})
