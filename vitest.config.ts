/**
 * The whole suite on vitest: one project for the unit tests beside the code, and one project of
 * integration tests per Neovim under test (real headless Neovim, the HTTP mock), so the version
 * is in every test's name and both run in one `npm test`.
 */
import { defineConfig } from "vitest/config";
import { testNvims } from "./scripts/nvim.mjs";
import type { NvimBinary } from "./test/helpers/neovim.ts";

const root = import.meta.dirname;

/** scripts/test.mjs has already found (or fetched) them; a bare `vitest` finds them itself. */
function nvimsUnderTest(): NvimBinary[] {
  const raw = process.env["TINE_TEST_NVIMS"];
  return raw ? (JSON.parse(raw) as NvimBinary[]) : testNvims(root);
}

/** `NVIM v0.10.4` -> `nvim-0.10`. */
const projectName = (n: NvimBinary) => `nvim-${/v(\d+\.\d+)/.exec(n.version)?.[1] ?? n.version}`;

const unitOnly = process.env["TINE_UNIT_ONLY"] === "1";

export default defineConfig({
  test: {
    // Each file in its own child process; two at a time on the 2-core machines. Integration tests
    // spend most of their time waiting on Neovim and the host, so two never starve each other.
    pool: "forks",
    maxWorkers: 2,
    retry: 0,
    reporters: ["default", "./test/vitest/summary-reporter.ts"],
    projects: [
      {
        test: {
          name: "unit",
          include: ["node/**/*.test.ts"],
          testTimeout: 30_000,
          // The unit files run one after another in their worker's process: none keeps module-level
          // state another reads, and a process and its imports per file were half the unit run's CPU.
          isolate: false,
          setupFiles: ["./test/vitest/shared-process-setup.ts"],
        },
      },
      ...(unitOnly ? [] : nvimsUnderTest()).map((nvim, i, all) => ({
        test: {
          name: projectName(nvim),
          include: ["test/integration/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // As the unit files: each file starts its own Neovim, host and mock; the helpers keep no
          // state across files, and a process per file cost about a sixth of the run's CPU.
          isolate: false,
          provide: { nvim, newestUnderTest: i === all.length - 1 },
        },
      })),
    ],
  },
});

declare module "vitest" {
  export interface ProvidedContext {
    /** The Neovim this project's integration tests run in. */
    nvim: NvimBinary;
    /** Whether it is the newest under test: what does not depend on Neovim's version runs there only. */
    newestUnderTest: boolean;
  }
}
