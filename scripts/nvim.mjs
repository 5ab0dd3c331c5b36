// Finds the Neovim binaries the project runs: TINE_TEST_NVIM if set, else the ones fetched by
// scripts/fetch-nvim.sh from Debian's newer suites (0.10 from trixie, 0.12 from forky).
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export const SUITES = ["trixie", "forky"];

export function fetchNvim(root, suite) {
  return execFileSync("bash", [join(root, "scripts/fetch-nvim.sh"), suite], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
}

/** All the Neovims to test with, as { version, bin }. */
export function testNvims(root) {
  const bins = process.env.TINE_TEST_NVIM ? [process.env.TINE_TEST_NVIM] : SUITES.map((s) => fetchNvim(root, s));
  return bins.map((bin) => ({ bin, version: execFileSync(bin, ["--version"], { encoding: "utf8" }).split("\n")[0].trim() }));
}

/** One Neovim to run interactively: TINE_TEST_NVIM, a system nvim >= 0.10, or the fetched 0.12. */
export function findNvim(root) {
  if (process.env.TINE_TEST_NVIM) return process.env.TINE_TEST_NVIM;
  try {
    const v = execFileSync("nvim", ["--version"], { encoding: "utf8" }).match(/NVIM v0\.(\d+)/);
    if (v && Number(v[1]) >= 10) return "nvim";
  } catch {}
  return fetchNvim(root, "forky");
}
