/** Ends every `switch` over a union: adding a member makes the compiler list each place to handle it. */
export function assertUnreachable(x: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(x)}`);
}
