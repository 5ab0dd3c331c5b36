---@meta
-- LuaCATS types of tine's options and public API, for the user's editor (lua-language-server
-- completes `opts` and `require("tine")` from them). They mirror lua/tine/config.lua (the options;
-- their defaults and documentation are there) and node/rpc/methods.ts (what the host returns).
-- Nothing here runs.

-- ---- options (:help tine-setup) ----

--- Every field is optional in setup(); after it, every field but effort and base_url is set.
---@class TineConfig
---@field model? string Anthropic model
---@field max_tokens? integer thinking counts toward it
---@field thinking? TineThinking|false the request's `thinking`, as the API takes it; false: the model's default
---@field effort? "low"|"medium"|"high"|"xhigh"|"max" output_config.effort; nil: the model's default
---@field web_search? boolean Anthropic's server-side web search
---@field tools_needing_approval? string[] client tools that wait for your approval
---@field system_prompt? string
---@field instructions? TineInstructions|false project instructions sent after system_prompt; false: none
---@field base_url? string points the SDK elsewhere (as ANTHROPIC_BASE_URL does)
---@field stream_idle_timeout? number seconds without data before a request is given up
---@field max_retry_wait? number the longest `retry-after` (seconds) waited out by itself
---@field bash_timeout? number seconds a bash_command may run
---@field tool_env_deny? string[] environment variables kept from tool processes
---@field mcp_servers? table<string, TineMcpServer> MCP servers by name (:help tine-mcp)
---@field mcp_auto_approve? string[] MCP calls needing no approval: "server" or "server/tool"
---@field mcp_project_files? boolean read the project's .tine/mcp.json and .mcp.json (they start programs)
---@field mcp_timeout? number seconds an MCP server may take to start, or a call to answer
---@field data_dir? string where threads are stored
---@field persist? boolean false: nothing is written to disk
---@field snapshots? boolean false: no code snapshots (a turn's changes are not listed, :Tine restore is off)
---@field snapshot_keep_days? number days a code snapshot is kept
---@field fork_idle_timeout? number minutes a fork may stay idle before it is asked to wrap up
---@field agent_fork_limit? integer forks the agent may have open that it opened itself, per thread
---@field context_max_bytes? integer the most one mention's item may hold (bytes)
---@field context_max_files? integer the most files one @file: glob may name
---@field fork_open? "vsplit"|"split"|"tab"|"replace" where a fork opens
---@field auto_title? boolean|string the model names a thread after its first reply (true: the thread's model; a name: that model)
---@field sidebar? TineSidebar
---@field list_max_height? integer the thread list's most lines
---@field retry_delay_ms? number first back-off (ms) when a transient error is retried
---@field display_fill_step? integer bytes of a long display written per step as it fills in from its end
---@field claude_command? string[] how Claude Code is started
---@field node? string the Node binary that runs the host
---@field complete_max_items? integer the most items one completion of a mention offers
---@field keymaps? TineKeymaps

--- An MCP server: `command` (stdio) or `url` (Streamable HTTP, SSE as fallback). "${VAR}" in a
--- value is read from the environment when the server starts.
---@class TineMcpServer
---@field command? string[] the program and its arguments
---@field env? table<string, string> added to the server's environment
---@field cwd? string where it runs (relative to the project)
---@field url? string
---@field headers? table<string, string>

--- The request's `thinking` (checked at setup; a value you set replaces the default whole).
---@class TineThinking
---@field type "adaptive"|"between_tools"|"enabled"|"disabled"
---@field display? "summarized"|"omitted"
---@field budget_tokens? integer with type "enabled": at least 1024, below max_tokens

--- Project instructions (:help tine-instructions); `files` you set replaces the default list whole.
---@class TineInstructions
---@field files? string[] read in this order; relative to the project root, or absolute; `~` and $XDG_CONFIG_HOME expanded
---@field max_bytes? integer a longer file is cut there (with a note)

---@class TineSidebar
---@field side? "left"|"right"
---@field width? integer columns
---@field input_height? integer lines
---@field min_editor_width? integer columns the editor keeps when forks widen the sidebar

--- Keys in tine's buffers; false leaves one unmapped.
---@class TineKeymaps
---@field send? string|false
---@field send_any? string|false
---@field help? string|false
---@field abort? string|false
---@field retry? string|false
---@field toggle_detail? string|false
---@field open_change? string|false
---@field approve? string|false
---@field approve_always? string|false
---@field deny? string|false
---@field edit_queued? string|false
---@field fork_at_message? string|false
---@field go_to_parent? string|false
---@field go_to_fork? string|false
---@field fork_report? string|false
---@field fork_promote? string|false
---@field fork_discard? string|false
---@field list_background? string|false
---@field list_open? string|false
---@field list_fork? string|false
---@field list_rename? string|false
---@field list_delete? string|false
---@field add? string|false any buffer: add the selection (Visual) or the file (Normal) to the input
---@field list_filter? string|false
---@field list_diff? string|false
---@field label? string|false
---@field edit_message? string|false

--- What the host receives at `init` (node/config.ts SentConfig): the options whole, unset ones as
--- vim.NIL, and the working directory.
---@class TineHostConfig: TineConfig
---@field cwd string

-- ---- the public API (:help tine-api) ----

--- One thread of this project, live or stored.
---@class TineThreadInfo
---@field id string a UUID, the same across restarts
---@field num integer the short number in buffer names (`tine://3/...`)
---@field parent_id string|vim.NIL
---@field title string
---@field status string idle, streaming, waiting, error, busy, running, exited, or stored
---@field stop_reason string|vim.NIL
---@field messages integer
---@field updated integer|vim.NIL when it last changed (ms since the epoch)
---@field bufnr integer|vim.NIL its display buffer, while it has one
---@field input_bufnr integer|vim.NIL
---@field changed_files string[] paths (from the project's top folder) its turns changed; {} for a stored thread

--- A file a turn changed, or a restore would change; added/removed are vim.NIL for a binary file.
---@class TineChangedFile
---@field path string
---@field status "added"|"modified"|"deleted"
---@field added integer|vim.NIL
---@field removed integer|vim.NIL

--- :Tine diff as the host gives it: each branch after `common` shared messages, and their code:
--- "off" (snapshots are off), "missing" (why not compared), or "files" (+ lines only the first
--- branch's latest snapshot has, − only the second's; `a`/`b` name the snapshots).
---@class TineBranchDiff
---@field common integer
---@field sides { title: string, lines: string[] }[]
---@field code { kind: "off" }|{ kind: "missing", why: string }|{ kind: "files", a: string, b: string, files: TineChangedFile[] }

--- How `restore()` or `restore_undo()` went: files written (or removed), and files left alone.
---@class TineRestoreResult
---@field written string[]
---@field left string[]

--- How `fork()` takes the fork; only these keys (another is an error naming it).
---@class TineForkOpts
---@field at_message? integer fork from this message (0-based)
---@field prefill? string put in the fork's input
---@field wait? boolean fork once the thread is at rest
---@field restore_code? boolean with at_message: the project's files are first restored to that message (|tine-restore|)
---@field background? boolean run without a window, and report back

--- After `send()`: the failed turn's text your message replaced ("" when none).
---@class TineSendResult
---@field replaced string

--- A message as the Messages API takes it.
---@class TineMessage
---@field role "user"|"assistant"
---@field content table[]
