/**
 * The host's table of what it calls in Lua (node/nvim/lua-api.ts) and lua/tine/host_api.lua name
 * the same functions, as this Neovim loads the module: a name in the table that Lua lacks would
 * fail only when called, and a Lua function the table lacks could be called by no typed call.
 */
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { describe, expect, inject, it } from "vitest";
import { HOST_API_BESIDES, LUA_RESULTS } from "../../node/nvim/lua-api.ts";
import { ROOT } from "../helpers/neovim.ts";

const nv = inject("nvim");

/** The functions `require("tine.host_api")` holds, sorted. */
function hostApiFunctions(): string[] {
  const list = `
    local M = require("tine.host_api")
    local names = vim.tbl_filter(function(k) return type(M[k]) == "function" end, vim.tbl_keys(M))
    table.sort(names)
    io.stdout:write(vim.json.encode(names))`;
  const env = { ...process.env };
  delete env["NVIM"];
  const r = spawnSync(
    nv.bin,
    ["--headless", "-u", "NONE", "-i", "NONE", "-n", "--cmd", `set rtp^=${ROOT}`, "-c", `lua ${list.replace(/\n/g, " ")}`, "-c", "qa!"],
    { cwd: tmpdir(), env, encoding: "utf8", timeout: 30_000 },
  );
  if (r.status !== 0) throw new Error(`nvim failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as string[];
}

describe(`the host's table of Lua functions (${nv.version})`, () => {
  it("names every function of tine.host_api, and no other", () => {
    const table = [...Object.keys(LUA_RESULTS), ...HOST_API_BESIDES].sort();
    expect(table).toEqual(hostApiFunctions());
  });
});
