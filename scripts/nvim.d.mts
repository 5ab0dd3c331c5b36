// Types of scripts/nvim.mjs for the TypeScript that imports it (vitest.config.ts).
export type NvimBinary = { bin: string; version: string };
export const SUITES: string[];
export function fetchNvim(root: string, suite: string): string;
export function testNvims(root: string): NvimBinary[];
export function findNvim(root: string): string;
