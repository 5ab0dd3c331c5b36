/**
 * A logger for the node-client: errors to stderr (the Lua side keeps them in the log), the rest
 * dropped. Passing it also stops the client from patching `console`.
 */
import { logLine } from "../util/log-line.ts";

const toStderr = (...args: unknown[]) => logLine(`tine host: ${args.map(String).join(" ")}`);
const ignore = () => {};

export const quietLogger = { info: ignore, debug: ignore, warn: toStderr, error: toStderr, level: "warn" } as never;
