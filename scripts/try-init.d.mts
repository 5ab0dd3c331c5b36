// Types of scripts/try-init.mjs for the TypeScript that imports it (test/integration/demo.test.ts).
export function tryInit(root: string, dataDir: string | null): string;
