-- Generated from node/rpc/options.ts by `node scripts/option-rules.mjs`: change the rules there, not here.
-- What every option setup() takes must be (lua/tine/option_checks.lua checks a value against it); the
-- host checks what it is sent at `init` against the same rules (node/host/config.ts).
return {
  is = "record",
  fields = {
    model = { is = "string", wanted = "a string" },
    max_tokens = { is = "number", above = 0, wanted = "a number above 0" },
    thinking = {
      is = "either",
      of = {
        { is = "literal", value = false, wanted = "false" },
        {
          is = "variants",
          wanted = "false or a table whose type is \"adaptive\", \"between_tools\", \"enabled\" or \"disabled\"",
          common = {
            display = { is = "one_of", values = { "summarized", "omitted" }, wanted = "\"summarized\" or \"omitted\"", optional = true },
          },
          pick = {
            {
              when = { type = { is = "one_of", values = { "adaptive" }, wanted = "one of \"adaptive\"" } },
              fields = { type = { is = "one_of", values = { "adaptive" }, wanted = "one of \"adaptive\"" } },
              order = { "type" },
            },
            {
              when = { type = { is = "one_of", values = { "between_tools" }, wanted = "one of \"between_tools\"" } },
              fields = { type = { is = "one_of", values = { "between_tools" }, wanted = "one of \"between_tools\"" } },
              order = { "type" },
            },
            {
              when = { type = { is = "one_of", values = { "disabled" }, wanted = "one of \"disabled\"" } },
              fields = { type = { is = "one_of", values = { "disabled" }, wanted = "one of \"disabled\"" } },
              order = { "type" },
            },
            {
              when = { type = { is = "one_of", values = { "enabled" }, wanted = "one of \"enabled\"" } },
              fields = {
                type = { is = "one_of", values = { "enabled" }, wanted = "one of \"enabled\"" },
                budget_tokens = { is = "number", min = 1024, below_option = "max_tokens", wanted = "at least 1024 and below max_tokens" },
              },
              order = { "type", "budget_tokens" },
            },
          },
          unmatched = { field = "type", wanted = "\"adaptive\", \"between_tools\", \"enabled\" or \"disabled\" (or set thinking = false)" },
          extra = "dropped",
          common_order = { "display" },
        },
      },
      wanted = "false or a table whose type is \"adaptive\", \"between_tools\", \"enabled\" or \"disabled\" or nil",
      nullable = true,
    },
    effort = {
      is = "one_of",
      values = { "low", "medium", "high", "xhigh", "max" },
      wanted = "one of \"low\", \"medium\", \"high\", \"xhigh\", \"max\" or nil",
      nullable = true,
    },
    web_search = { is = "boolean", wanted = "a boolean" },
    tools_needing_approval = { is = "list", of = { is = "string", wanted = "a string" }, wanted = "a list of strings" },
    system_prompt = { is = "string", wanted = "a string" },
    instructions = {
      is = "either",
      of = {
        { is = "literal", value = false, wanted = "false" },
        {
          is = "record",
          fields = {
            files = { is = "list", of = { is = "string", wanted = "a string" }, wanted = "a list of strings" },
            max_bytes = { is = "number", whole = true, min = 1, wanted = "a whole number >= 1" },
          },
          wanted = "a table",
          extra = "refused",
          order = { "files", "max_bytes" },
        },
      },
      wanted = "false or a table { files = { paths }, max_bytes = N }",
    },
    base_url = { is = "string", wanted = "a string or nil", nullable = true },
    stream_idle_timeout = { is = "number", above = 0, wanted = "a number above 0" },
    max_retry_wait = { is = "number", above = 0, wanted = "a number above 0" },
    bash_timeout = { is = "number", above = 0, wanted = "a number above 0" },
    tool_env_deny = { is = "list", of = { is = "string", wanted = "a string" }, wanted = "a list of strings" },
    mcp_servers = {
      is = "map",
      of = {
        is = "variants",
        wanted = "a table { command = {...} } or { url = ... }",
        common = {
          type = { is = "one_of", values = { "stdio", "http", "sse" }, wanted = "one of \"stdio\", \"http\", \"sse\"", optional = true },
        },
        pick = {
          {
            fields = {
              command = {
                is = "either",
                of = {
                  { is = "string", wanted = "a string" },
                  {
                    is = "list",
                    of = { is = "string", wanted = "a string" },
                    non_empty = true,
                    wanted = "a non-empty list of strings",
                  },
                },
                wanted = "a non-empty list of strings (the program, then its arguments)",
              },
              args = { is = "list", of = { is = "string", wanted = "a string" }, wanted = "a list of strings", optional = true },
              env = {
                is = "map",
                of = { is = "string", wanted = "a string" },
                wanted = "a table of strings",
                names = "dotted",
                optional = true,
              },
              cwd = { is = "string", wanted = "a string", optional = true },
            },
            order = { "command", "args", "env", "cwd" },
          },
          {
            when = {
              url = { is = "string", wanted = "a string" },
              type = { is = "one_of", values = { "http", "sse" }, wanted = "one of \"http\", \"sse\"" },
            },
            fields = {
              url = { is = "string", wanted = "a string" },
              headers = {
                is = "map",
                of = { is = "string", wanted = "a string" },
                wanted = "a table of strings",
                names = "dotted",
                optional = true,
              },
            },
            order = { "url", "headers" },
          },
        },
        extra = "refused",
        common_order = { "type" },
      },
      wanted = "a table of servers by name",
      names = "dotted",
      key = {
        is = "string",
        non_empty = true,
        max_length = 64,
        chars = "A-Za-z0-9_-",
        wanted = "named with letters, digits, _ and - only (it goes into tool names)",
      },
    },
    mcp_auto_approve = { is = "list", of = { is = "string", wanted = "a string" }, wanted = "a list of strings" },
    mcp_timeout = { is = "number", above = 0, wanted = "a number above 0" },
    mcp_project_files = { is = "boolean", wanted = "true or false" },
    data_dir = { is = "string", wanted = "a string" },
    persist = { is = "boolean", wanted = "a boolean" },
    snapshots = { is = "boolean", wanted = "a boolean" },
    snapshot_keep_days = { is = "number", above = 0, wanted = "a number above 0" },
    fork_worktree = { is = "one_of", values = { "always", "background", "never" }, wanted = "one of \"always\", \"background\", \"never\"" },
    worktree_dir = {
      is = "either",
      of = { { is = "literal", value = false, wanted = "false" }, { is = "string", non_empty = true, wanted = "a non-empty string" } },
      wanted = "a folder (a string) or false",
    },
    fork_idle_timeout = { is = "number", above = 0, wanted = "a number above 0" },
    agent_fork_limit = { is = "number", whole = true, min = 0, wanted = "a whole number >= 0" },
    context_max_bytes = { is = "number", above = 0, wanted = "a number above 0" },
    context_max_files = { is = "number", above = 0, wanted = "a number above 0" },
    context_git_timeout = { is = "number", above = 0, wanted = "a number above 0" },
    fork_open = { is = "one_of", values = { "vsplit", "split", "tab", "replace" }, wanted = "one of \"vsplit\", \"split\", \"tab\", \"replace\"" },
    auto_title = {
      is = "either",
      of = { { is = "boolean", wanted = "a boolean" }, { is = "string", non_empty = true, wanted = "a non-empty string" } },
      wanted = "true, false or a model name",
    },
    models = { is = "list", of = { is = "string", wanted = "a string" }, wanted = "a list of strings" },
    thinking_budgets = {
      is = "record",
      wanted = "a table",
      extra = "refused",
      each = { is = "number", whole = true, min = 1024, wanted = "a whole number >= 1024" },
      order = { "low", "medium", "high" },
    },
    auto_compact = {
      is = "either",
      of = {
        { is = "literal", value = false, wanted = "false" },
        { is = "number", above = 0, max = 1, wanted = "a number above 0, at most 1" },
      },
      wanted = "false or a fraction above 0, at most 1",
    },
    sidebar = {
      is = "record",
      fields = {
        side = { is = "one_of", values = { "left", "right" }, wanted = "one of \"left\", \"right\"" },
        width = { is = "number", above = 0, wanted = "a number above 0" },
        input_height = { is = "number", above = 0, wanted = "a number above 0" },
        min_editor_width = { is = "number", min = 0, wanted = "a number >= 0" },
      },
      wanted = "a table",
      extra = "refused",
      order = { "side", "width", "input_height", "min_editor_width" },
    },
    list_max_height = { is = "number", above = 0, wanted = "a number above 0" },
    retry_delay_ms = { is = "number", min = 0, wanted = "a number >= 0" },
    display_fill_step = { is = "number", above = 0, wanted = "a number above 0" },
    claude_command = { is = "list", of = { is = "string", wanted = "a string" }, non_empty = true, wanted = "a non-empty list of strings" },
    node = { is = "string", wanted = "a string" },
    complete_max_items = { is = "number", whole = true, min = 1, wanted = "a whole number >= 1" },
    prices = {
      is = "map",
      of = {
        is = "record",
        fields = {
          input = { is = "number", finite = true, min = 0, wanted = "a number >= 0 (dollars per million tokens)" },
          output = { is = "number", finite = true, min = 0, wanted = "a number >= 0 (dollars per million tokens)" },
          cache_write = { is = "number", finite = true, min = 0, wanted = "a number >= 0 (dollars per million tokens)" },
          cache_read = { is = "number", finite = true, min = 0, wanted = "a number >= 0 (dollars per million tokens)" },
          context_window = { is = "number", finite = true, above = 0, wanted = "a number above 0" },
        },
        wanted = "a table { input, output, cache_write, cache_read, context_window }",
        extra = "dropped",
        order = { "input", "output", "cache_write", "cache_read", "context_window" },
      },
      wanted = "a table of rates by model name",
      names = "quoted",
    },
    cache_lifetime = { is = "number", above = 0, wanted = "a number above 0" },
    keymaps = {
      is = "record",
      wanted = "a table",
      extra = "refused",
      each = {
        is = "either",
        of = { { is = "literal", value = false, wanted = "false" }, { is = "string", wanted = "a string" } },
        wanted = "a key (a string) or false",
      },
      order = {
        "send", "send_any", "help", "abort", "retry", "toggle_detail", "open_change", "approve", "approve_always", "deny",
        "input_approve", "input_approve_always", "input_deny", "input_deny_reason", "edit_queued", "fork_at_message", "go_to_parent",
        "go_to_fork", "fork_report", "fork_promote", "fork_discard", "list_background", "list_open", "list_fork", "list_worktree",
        "list_rename", "list_delete", "add", "list_filter", "list_diff", "label", "edit_message", "compact", "deny_reason",
      },
    },
  },
  wanted = "a table",
  extra = "refused",
  order = {
    "model", "max_tokens", "thinking", "effort", "web_search", "tools_needing_approval", "system_prompt", "instructions", "base_url",
    "stream_idle_timeout", "max_retry_wait", "bash_timeout", "tool_env_deny", "mcp_servers", "mcp_auto_approve", "mcp_timeout",
    "mcp_project_files", "data_dir", "persist", "snapshots", "snapshot_keep_days", "fork_worktree", "worktree_dir", "fork_idle_timeout",
    "agent_fork_limit", "context_max_bytes", "context_max_files", "context_git_timeout", "fork_open", "auto_title", "models",
    "thinking_budgets", "auto_compact", "sidebar", "list_max_height", "retry_delay_ms", "display_fill_step", "claude_command", "node",
    "complete_max_items", "prices", "cache_lifetime", "keymaps",
  },
}
