/**
 * A logger for the node-client: errors to stderr (the Lua side keeps them in the log), the rest
 * dropped. Passing it also stops the client from patching `console`.
 */
const toStderr = (...args: unknown[]) => process.stderr.write(`tine host: ${args.map(String).join(" ")}\n`);
const ignore = () => {};

export const quietLogger = { info: ignore, debug: ignore, warn: toStderr, error: toStderr, level: "warn" } as never;
