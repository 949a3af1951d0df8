import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { join } from "node:path";
import { type WebSocket, WebSocketServer } from "ws";

/**
 * Runs the real command line (`bin/palette-chatops.js <verb>`) as a child process, the way an
 * operator or a container does, and keeps everything it writes so tests can read its JSON logs
 * and prove that no secret ever reached them.
 */

export const BIN = join(import.meta.dirname, "..", "..", "bin", "palette-chatops.js");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns something truthy; fails naming `what` after `timeoutMs`. */
export async function until<T>(
  what: string,
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : "";
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await sleep(50);
  }
}

/** A port free right now (the child binds it a moment later; a clash is very unlikely). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The test runner's environment without anything that configures the bot. */
export function cleanEnv(): Record<string, string> {
  const configured =
    /^(SLACK_|PALETTE_|PORT$|METRICS_PORT$|STATE_DB$|DATABASE_URL$|POLL_SCHEDULE$|RECONCILE_SCHEDULE$|TOKEN_REFRESH_SCHEDULE$|ALLOW_|LOG_LEVEL$)/;
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !configured.test(entry[0]),
    ),
  );
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CliProcess {
  child: ChildProcess;
  /** stdout and stderr as written so far (interleaved in arrival order) */
  output(): string;
  stdout(): string;
  stderr(): string;
  /** stdout lines that parse as JSON objects (pino's log lines) */
  logs(): Array<Record<string, unknown>>;
  /** resolves on exit with the code or the signal */
  exited: Promise<Exit>;
  /** sends `signal` and waits (bounded) for the exit; returns it with the time it took */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<Exit & { ms: number }>;
  /** SIGKILL if still running (cleanup) */
  kill(): Promise<void>;
}

export function spawnCli(
  args: string[],
  env: Record<string, string>,
  options: {
    stdin?: "pipe" | "ignore";
    /** another entry point, e.g. a compiled `main.js` (benchmarks measure what the image runs) */
    script?: string;
    /** flags for node itself, before the script (the image's V8 flags) */
    nodeArgs?: string[];
  } = {},
): CliProcess {
  const child = spawn(
    process.execPath,
    [...(options.nodeArgs ?? []), options.script ?? BIN, ...args],
    {
      env: { ...cleanEnv(), ...env },
      stdio: [options.stdin ?? "ignore", "pipe", "pipe"],
    },
  );
  let all = "";
  let out = "";
  let err = "";
  child.stdout!.setEncoding("utf8");
  child.stderr!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    out += chunk;
    all += chunk;
  });
  child.stderr!.on("data", (chunk: string) => {
    err += chunk;
    all += chunk;
  });
  let exit: Exit | undefined;
  const exited = new Promise<Exit>((resolve, reject) => {
    child.once("error", reject);
    // "close" (not "exit"): by then stdout and stderr are fully read
    child.once("close", (code, signal) => {
      exit = { code, signal };
      resolve(exit);
    });
  });

  return {
    child,
    output: () => all,
    stdout: () => out,
    stderr: () => err,
    logs: () =>
      out
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Record<string, unknown>];
          } catch {
            return [];
          }
        }),
    exited,
    async stop(signal = "SIGTERM", timeoutMs = 8_000) {
      const started = Date.now();
      if (!exit) child.kill(signal);
      let timer: NodeJS.Timeout | undefined;
      const result = await Promise.race([
        exited,
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      if (!result) {
        child.kill("SIGKILL");
        await exited;
        throw new Error(`did not exit within ${timeoutMs} ms of ${signal}; killed`);
      }
      return { ...result, ms: Date.now() - started };
    },
    async kill() {
      if (exit) return;
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/** The log lines with message `msg` (pino's `msg` field). */
export function logged(proc: CliProcess, msg: string): Array<Record<string, unknown>> {
  return proc.logs().filter((line) => line.msg === msg);
}

/**
 * A stand-in for Slack's Socket Mode endpoint: the URL that the fake Slack hands out from
 * apps.connections.open. It greets each connection with `hello`, records what the bot sends
 * (acks carry the `envelope_id`), and lets the test push envelopes.
 */
export interface SocketModeServer {
  url: string;
  sockets: WebSocket[];
  fromBot: Array<Record<string, unknown>>;
  /** sends an envelope on the newest open connection */
  send(envelope: Record<string, unknown>): void;
  close(): Promise<void>;
}

export async function startSocketModeServer(): Promise<SocketModeServer> {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await once(wss, "listening");
  const sockets: WebSocket[] = [];
  const fromBot: Array<Record<string, unknown>> = [];
  wss.on("connection", (socket) => {
    sockets.push(socket);
    socket.on("message", (data) => {
      try {
        fromBot.push(JSON.parse(data.toString()) as Record<string, unknown>);
      } catch {
        fromBot.push({ _raw: data.toString() });
      }
    });
    socket.send(
      JSON.stringify({ type: "hello", num_connections: 1, connection_info: { app_id: "A111" } }),
    );
  });
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/link`,
    sockets,
    fromBot,
    send(envelope) {
      const open = sockets.filter((socket) => socket.readyState === socket.OPEN);
      const socket = open[open.length - 1];
      if (!socket) throw new Error("no open Socket Mode connection");
      socket.send(JSON.stringify(envelope));
    },
    async close() {
      for (const socket of sockets) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** Every value in `secrets` that occurs in `text` (empty: none leaked). */
export function leaked(text: string, secrets: Record<string, string>): string[] {
  return Object.entries(secrets)
    .filter(([, value]) => value.length > 0 && text.includes(value))
    .map(([name]) => name);
}
