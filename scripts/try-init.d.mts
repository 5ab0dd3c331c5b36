// Types of scripts/try-init.mjs for the TypeScript that imports it (test/integration/demo.test.ts).
export function tryInit(root: string, dataDir: string | null): string;
export function demoFolder(root: string): {
  dir: string;
  data: string;
  state: string;
  serverLog: string;
  help: string;
  hostCache: string;
};
export function demoEnv(root: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
