import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

/**
 * Issue 37, item 6: real processes on one SQLite file, each claiming it as the bot does at start
 * (test/support/sole-replica-child.ts). Two that start together: one leads, the other stops
 * (before, both read "no lease" and both went on). One SIGKILLed: the next, on this host, in
 * this PID namespace, takes over at once, not a TTL later.
 */

const CHILD = join(import.meta.dirname, "../support/sole-replica-child.ts");

interface Child {
  proc: ChildProcess;
  /** the next JSON line the child prints */
  line(): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

const children: Child[] = [];
const dirs: string[] = [];

afterEach(() => {
  for (const { proc } of children.splice(0)) if (proc.exitCode === null) proc.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function start(path: string, ttlMs: number): Child {
  const proc = spawn(process.execPath, ["--import", "tsx", CHILD], {
    env: { ...process.env, STATE_DB: path, TTL_MS: String(ttlMs) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines: Array<Record<string, unknown>> = [];
  const waiting: Array<(line: Record<string, unknown>) => void> = [];
  let buffered = "";
  proc.stdout!.setEncoding("utf8");
  proc.stdout!.on("data", (chunk: string) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n")) {
      const line = JSON.parse(buffered.slice(0, end)) as Record<string, unknown>;
      buffered = buffered.slice(end + 1);
      const next = waiting.shift();
      if (next) next(line);
      else lines.push(line);
    }
  });
  const exited = new Promise<number | null>((resolve) =>
    proc.once("exit", (code) => resolve(code)),
  );
  const child: Child = {
    proc,
    exited,
    line: () => {
      const line = lines.shift();
      if (line) return Promise.resolve(line);
      return new Promise((resolve, reject) => {
        waiting.push(resolve);
        void exited.then((code) => reject(new Error(`the child exited (${code}) before a line`)));
      });
    },
  };
  children.push(child);
  return child;
}

/**
 * A live holder's TTL: the refused one waits it out, and the holder renews every quarter of it,
 * so only a holder whose event loop stalls for three quarters of it (9 s) loses its lease: a busy
 * machine's pauses stay well under that (with 2 s, a 1.5 s stall let the waiter take over).
 */
const LIVE_TTL_MS = 12_000;

function stateFile(): string {
  const dir = mkdtempSync(join(tmpdir(), "sole-replica-processes-"));
  dirs.push(dir);
  return join(dir, "state.sqlite");
}

describe("processes claiming one SQLite file", () => {
  it("two started together: one leads, the other stops naming the file", async () => {
    const path = stateFile();
    const [a, b] = [start(path, LIVE_TTL_MS), start(path, LIVE_TTL_MS)];
    expect(await a.line()).toMatchObject({ ready: true });
    expect(await b.line()).toMatchObject({ ready: true });
    // both claim at once
    a.proc.stdin!.write("go\n");
    b.proc.stdin!.write("go\n");
    const outcomes = await Promise.all([a.line(), b.line()]);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(["refused", "started"]);
    const refused = outcomes.find((o) => o.outcome === "refused")!;
    expect(refused.name).toBe("SqliteFileShared");
    expect(refused.message).toContain(path);
    const loser = outcomes[0] === refused ? a : b;
    expect(await loser.exited).toBe(3);
  }, 60_000);

  it("one killed: the next on this host takes over at once, not a TTL later", async () => {
    const path = stateFile();
    // a TTL longer than the test's time-out: waiting it out would fail the test
    const ttl = 10 * 60_000;
    const first = start(path, ttl);
    await first.line();
    first.proc.stdin!.write("go\n");
    expect(await first.line()).toMatchObject({ outcome: "started", token: 1 });
    first.proc.kill("SIGKILL");
    await first.exited;
    const next = start(path, ttl);
    await next.line();
    next.proc.stdin!.write("go\n");
    expect(await next.line()).toMatchObject({ outcome: "started", token: 2 });
  }, 60_000);

  it("a live one is not taken over: the next waits for its lease and stops", async () => {
    const path = stateFile();
    const first = start(path, LIVE_TTL_MS);
    await first.line();
    first.proc.stdin!.write("go\n");
    expect(await first.line()).toMatchObject({ outcome: "started" });
    const next = start(path, LIVE_TTL_MS);
    await next.line();
    next.proc.stdin!.write("go\n");
    expect(await next.line()).toMatchObject({ outcome: "refused", name: "SqliteFileShared" });
  }, 60_000);
});
