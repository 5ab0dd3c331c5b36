/**
 * bubblewrap's side, with real processes: the refusal says why and what fixes it when bwrap is
 * missing or cannot make its namespaces, and a sandbox whose host dies (kill -9) takes
 * everything in it along (--die-with-parent), as the host's exit must.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pidsRunning, until } from "../../test/helpers/processes.ts";
import { bwrapArgs, probeSandbox } from "./bwrap.ts";
import { sandboxPolicy } from "./policy.ts";

let base: string;
beforeAll(() => {
  base = mkdtempSync("/var/tmp/tine-bwrap-");
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("probeSandbox", () => {
  it("starts the real sandbox here", () => {
    expect(probeSandbox("bwrap")).toEqual({ ok: true });
  });

  it("names the package when bwrap is not installed", () => {
    const r = probeSandbox(join(base, "no-such-bwrap"));
    expect(r).toMatchObject({ ok: false, reason: "bubblewrap (bwrap) is not installed" });
    expect(r.ok || r.fix).toMatch(/apt install bubblewrap/);
  });

  it("says how to allow user namespaces when bwrap cannot make them", () => {
    // A bwrap that fails as Debian's does with kernel.unprivileged_userns_clone=0.
    const fake = join(base, "bwrap-no-userns");
    writeFileSync(
      fake,
      "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n",
    );
    chmodSync(fake, 0o755);
    const r = probeSandbox(fake);
    expect(r).toMatchObject({ ok: false, reason: expect.stringMatching(/cannot create its namespaces: .*No permissions/) });
    expect(r.ok || r.fix).toMatch(/unprivileged_userns_clone=1.*apparmor_restrict_unprivileged_userns=0/);
  });
});

describe("a sandbox whose host dies", () => {
  it("ends with everything in it, even a process that left its group", async () => {
    const tag = 4000 + Math.floor(Math.random() * 1000);
    const policy = sandboxPolicy({ root: base, dataDir: join(base, "data"), home: base });
    // A stand-in host: a shell that starts the sandbox as tine does, then is killed with -9.
    const host = spawn("sh", ["-c", 'bwrap "$@" & wait', "sh", ...bwrapArgs(policy, `setsid sleep ${tag}.1 & sleep ${tag}.2`)], {
      stdio: "ignore",
    });
    await until("both sleeps to start", () => pidsRunning(`sleep ${tag}.`).length === 2);
    host.kill("SIGKILL");
    await until("both sleeps to end", () => pidsRunning(`sleep ${tag}.`).length === 0);
    expect(pidsRunning(`sleep ${tag}.`)).toEqual([]);
  });
});
