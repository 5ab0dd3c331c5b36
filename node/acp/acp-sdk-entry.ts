/**
 * What tine uses of the ACP SDK at run time (its types are imported directly, which costs
 * nothing): bundled alone into dist/acp-sdk.cjs and loaded when the first agent starts
 * (acp-sdk.ts), so a host that starts no agent never evaluates it.
 */
export { client, ndJsonStream, PROTOCOL_VERSION, RequestError } from "@agentclientprotocol/sdk/unstable";
