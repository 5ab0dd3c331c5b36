-- :checkhealth tine
local M = {}

function M.check()
  local h = vim.health
  local host = require("tine.host")
  local config = require("tine.config").options
  h.start("tine.nvim")
  local v = vim.version()
  if vim.fn.has("nvim-0.10") == 1 then
    h.ok(("Neovim %d.%d.%d"):format(v.major, v.minor, v.patch))
  else
    h.error("Neovim 0.10 or newer is needed")
  end
  if vim.fn.executable(config.node) == 1 then
    local out = vim.trim(vim.fn.system({ config.node, "--version" }))
    local major = tonumber(out:match("^v(%d+)"))
    if major and major >= 20 then
      h.ok("Node " .. out)
    else
      h.error("Node >= 20 is needed, found " .. out)
    end
  else
    h.error(("`%s` not found: install Node >= 20"):format(config.node))
  end
  if vim.fn.filereadable(host.script) == 1 then
    h.ok("host built: " .. host.script)
  else
    h.error("host not built: " .. host.build_hint())
  end
  -- A plugin manager tags doc/ on install; a `dir =` checkout is not: :help tine then opens
  -- another plugin's page that fuzzy-matches. Asked of Neovim, not of doc/tags: the offline demo
  -- tags a copy in its own folder (scripts/try-init.mjs).
  if vim.tbl_contains(vim.fn.getcompletion("tine.nvim", "help"), "tine.nvim") then
    h.ok("help tagged: :help tine.nvim")
  else
    h.warn(("help not tagged: run :helptags %s/doc (until then :help tine.nvim finds nothing)"):format(host.root))
  end
  -- The key's presence only: its value is never shown or written anywhere.
  if (vim.env.ANTHROPIC_API_KEY or "") ~= "" then
    h.ok("ANTHROPIC_API_KEY is set")
  else
    h.warn("ANTHROPIC_API_KEY is not set: requests will fail (try the offline demo: `npm run try`)")
  end
  local thinking = type(config.thinking) == "table" and config.thinking.type or "model default"
  h.info(
    ("model %s · max_tokens %d · thinking %s · effort %s"):format(
      config.model,
      config.max_tokens,
      thinking,
      config.effort or "model default"
    )
  )
  local base = config.base_url or vim.env.ANTHROPIC_BASE_URL
  if base and base ~= "" then
    h.info("API base URL: " .. base)
  end
  local log = host.log_path()
  h.info("host log: " .. log .. (vim.uv.fs_stat(log) and "" or " (nothing logged yet)"))

  -- Optional: only :Tine claude, forks of its threads and :Tine export need it.
  local claude = config.claude_command[1]
  if vim.fn.executable(claude) == 1 then
    h.ok(("Claude Code: %s"):format(vim.trim(vim.fn.system({ claude, "--version" }))))
  else
    h.info(("Claude Code: `%s` not found (only :Tine claude and :Tine export need it; see claude_command)"):format(claude))
  end

  -- Asked of the host, which starts the sandbox: the bwrap it finds is the one forks would get.
  local sb_ok, sandbox = pcall(host.request, "sandbox_status")
  if not sb_ok then
    h.error("the host could not check the sandbox: " .. tostring(sandbox))
  elseif sandbox.ok then
    h.ok("sandbox: bubblewrap works: unattended forks can run")
  else
    h.warn(("sandbox: %s: unattended forks cannot run"):format(sandbox.reason), { sandbox.fix })
  end

  h.start("tine.nvim: project instructions")
  if config.instructions == false then
    h.info("instructions = false: no instruction files are sent")
  else
    local ok, files = pcall(host.request, "instructions_health")
    if not ok then
      h.error("the host could not look for the instruction files: " .. tostring(files))
    else
      -- What a thread started now would read, in order (`instructions.files`).
      for _, f in ipairs(files) do
        if f.state == "read" then
          h.ok(f.path .. ": sent to new threads")
        elseif f.state == "cut" then
          h.warn(
            ("%s: %d bytes, over instructions.max_bytes (%d): only its first %d bytes are sent"):format(
              f.path,
              f.size,
              config.instructions.max_bytes,
              config.instructions.max_bytes
            )
          )
        elseif f.state == "unreadable" then
          h.warn(("%s: could not be read (%s): new threads start without it"):format(f.path, f.why))
        elseif f.state == "outside" then
          -- A project's file linked outside it (a cloned repo's CLAUDE.md -> ~/.aws/credentials).
          h.warn(
            ("%s: not read: it links to %s, outside the project (name that file in instructions.files to send it)"):format(f.path, f.to)
          )
        elseif f.state == "same" then
          h.info(("%s: the same file as %s, sent once"):format(f.path, f.as))
        else
          h.info(f.path .. ": not there")
        end
      end
    end
  end

  h.start("tine.nvim: ACP agents")
  if vim.tbl_isempty(config.acp_agents or {}) then
    h.info("none configured (acp_agents in setup, :help tine-acp)")
  else
    -- Each agent is started once, apart from its threads', and stopped: its answer to initialize.
    local acp_ok, agents = pcall(host.request, "agents_health")
    if not acp_ok then
      h.error("the host could not start the ACP agents: " .. tostring(agents))
    else
      for _, a in ipairs(agents) do
        if a.error then
          h.error(a.error)
        else
          h.ok(table.concat(a.lines, ": "))
        end
      end
    end
  end

  h.start("tine.nvim: MCP servers")
  local mcp_ok, servers = pcall(host.request, "mcp_servers")
  local unread_ok, unread = pcall(host.request, "mcp_unread")
  if not mcp_ok or not unread_ok then
    h.error("the host could not report on the MCP servers: " .. tostring(mcp_ok and unread or servers))
  elseif #servers == 0 then
    h.info(require("tine.mcp").none(unread))
  else
    for _, line in ipairs(unread) do
      h.info(line)
    end
    -- Servers start with the first thread that sends; asking here starts none.
    for _, s in ipairs(servers) do
      local line = require("tine.mcp").describe(s)
      if s.state == "ready" then
        h.ok(line)
      elseif s.state == "failed" then
        h.error(line)
        if #s.stderr > 0 then
          h.info("its last lines of stderr:\n" .. table.concat(s.stderr, "\n"))
        end
      else
        h.info(line)
      end
    end
  end

  h.start("tine.nvim: stored threads")
  if not config.persist then
    h.info("persist = false: threads are not stored")
  else
    local ok, store = pcall(host.request, "store_health")
    if not ok then
      h.error("the host could not report on the store: " .. tostring(store))
    else
      h.ok(("%d thread(s) of this project in %s"):format(store.threads, store.dir))
      for _, u in ipairs(store.unreadable) do
        h.error("unreadable transcript " .. u)
      end
      for _, p in ipairs(store.problems) do
        h.warn("skipped when loading: " .. p)
      end
    end
  end

  h.start("tine.nvim: code snapshots")
  local ok, snap = pcall(host.request, "snapshot_health")
  if not ok then
    h.error("the host could not report on code snapshots: " .. tostring(snap))
  elseif snap.on then
    h.ok(("of %s, in %s: %.1f MiB (kept %d days)"):format(snap.root, snap.dir, snap.bytes / 1048576, config.snapshot_keep_days))
  else
    h.info(("off: %s (a turn's changed files are not listed, :Tine restore cannot bring files back)"):format(snap.why))
  end

  h.start("tine.nvim: worktrees")
  local wt_ok, wt = pcall(host.request, "worktree_health")
  if not wt_ok then
    h.error("the host could not report on the worktrees: " .. tostring(wt))
  elseif #wt.worktrees == 0 then
    h.info("none made (they go in " .. wt.dir .. ")")
  else
    for _, w in ipairs(wt.worktrees) do
      local size = ("%.1f MiB"):format(w.bytes / 1048576)
      local changed = w.changed == vim.NIL and "no turn recorded" or ("%d changed file%s"):format(w.changed, w.changed == 1 and "" or "s")
      if w.merge_into ~= vim.NIL then
        h.info(("%s: its conflicted merge into %s waits for :Tine merge done · %s"):format(w.path, w.merge_into, size))
      elseif #w.threads > 0 then
        h.ok(("%s: %s · %s · %s"):format(w.path, table.concat(w.threads, ", "), changed, size))
      else
        -- A deleted fork's, or one whose transcript is gone: tine no longer removes it.
        h.warn(("%s: left over: no thread works in it (%s): remove it with :!rm -rf %s"):format(w.path, size, vim.fn.shellescape(w.path)))
      end
    end
  end
end

return M
