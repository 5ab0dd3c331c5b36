/** How threads are named: in messages, on disk, to Lua. */

/** Unique across processes and machines (a UUID); stays the same when the thread is stored. */
export type ThreadId = string;

/** What a thread id looks like: it names files, so nothing that could leave the folder. */
export const isThreadId = (v: unknown): v is ThreadId => typeof v === "string" && /^[A-Za-z0-9-]+$/.test(v);
