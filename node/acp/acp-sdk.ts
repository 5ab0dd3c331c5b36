/**
 * The ACP SDK, loaded on first use: the host's start-up is a measured target (its schemas are
 * built when the SDK is evaluated), and most sessions start no agent. In the build,
 * `./acp-sdk-entry.ts` is dist/acp-sdk.cjs (scripts/build.mjs).
 */
export type AcpSdk = typeof import("./acp-sdk-entry.ts");

let loading: Promise<AcpSdk> | null = null;

export function loadAcpSdk(): Promise<AcpSdk> {
  loading ??= import("./acp-sdk-entry.ts");
  return loading;
}
