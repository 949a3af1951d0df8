import { systemClock } from "./clock.ts";
import { ConfigError, loadConfig, logLevelFrom } from "./config.ts";
import { createLogger } from "./log.ts";

/**
 * `palette-chatops start|console|demo|simulator|doctor` (also `npm start`, `npm run console`,
 * `npm run demo`, `npm run simulator`, `npm run doctor`). Each verb loads only the parts it needs.
 */

const USAGE = `usage: palette-chatops <command>
  start       run the bot against Slack and Palette (configured by environment variables)
  console     the /palette commands in this terminal, against Palette (PALETTE_* variables)
  demo        the console against a built-in Palette simulator: no Slack, no Palette account
  simulator   serve only the Palette API simulator (--port, --clusters N, --seed S, --animate MS)
  doctor      check this install (configuration, Slack, Palette, the store, the clock); exit 0 when the bot can run
  rotate-identity-key  re-seal linked Palette keys under IDENTITY_KEY (the old key in IDENTITY_KEY_PREVIOUS)
  backup <file>        copy the store (STATE_DB / DATABASE_URL) into a new SQLite file, while the bot runs
  restore <file>       copy a backup into the store, which must be new or empty
  migrate-store --from <SQLite file> [--to <postgres URL>]  copy a SQLite store into an empty PostgreSQL (DATABASE_URL without --to)`;

async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  switch (verb) {
    case "start": {
      const config = loadConfig(process.env, { requireSlack: true });
      const logger = createLogger(config.logLevel);
      const { startBot } = await import("./app/bot.ts");
      // listening before start-up, so a SIGTERM during it still ends in a graceful stop
      const stopRequested = untilSignal(logger);
      const bot = await startBot(config, logger, systemClock);
      // a signal, or the bot must not run on (its SQLite file taken by another process)
      const fatal = await Promise.race([stopRequested.then(() => undefined), bot.fatal]);
      if (fatal) logger.error({ err: fatal.message }, "exiting: this process must not run on");
      // Kubernetes kills the pod after its grace period (30 s) anyway; better to say why first
      const watchdog = setTimeout(() => {
        logger.error("shutdown took longer than 20 s; exiting without finishing it");
        process.exit(1);
      }, 20_000);
      watchdog.unref();
      await bot.stop();
      clearTimeout(watchdog);
      // non-zero, so the orchestrator starts it again and its start-up claim decides
      return fatal ? 1 : 0;
    }
    case "console": {
      const config = loadConfig(process.env, { requireSlack: false });
      const { runPaletteConsole } = await import("./app/console.ts");
      return runPaletteConsole(config);
    }
    case "demo": {
      const { runDemo } = await import("./app/demo.ts");
      return runDemo(rest, logLevelFrom(process.env, "warn"));
    }
    case "rotate-identity-key": {
      const config = loadConfig(process.env, { requireSlack: false });
      const { rotateIdentityKey } = await import("./app/rotate-identity-key.ts");
      return rotateIdentityKey(config, systemClock, (line) => process.stdout.write(`${line}\n`));
    }
    case "doctor": {
      // its own configuration check: a bad variable is a line of the table, not a crash
      const { doctorCli } = await import("./app/doctor.ts");
      return doctorCli({
        env: process.env,
        clock: systemClock,
        write: (text) => process.stdout.write(text),
        tty: process.stdout.isTTY === true,
      });
    }
    case "backup":
    case "restore":
    case "migrate-store": {
      const copy = await import("./app/store-copy.ts");
      const write = (line: string) => process.stdout.write(`${line}\n`);
      if (verb === "backup") return copy.backupCli(rest, process.env, write);
      if (verb === "restore") return copy.restoreCli(rest, process.env, write);
      return copy.migrateStoreCli(rest, process.env, write);
    }
    case "simulator": {
      const { runSimulatorCli } = await import("./simulator/cli.ts");
      return runSimulatorCli(rest);
    }
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(`${USAGE}\n`);
      return verb === undefined ? 2 : 0;
    default:
      process.stderr.write(`unknown command "${verb}"\n${USAGE}\n`);
      return 2;
  }
}

/** Resolves at the first SIGTERM or SIGINT; a second one exits at once. */
function untilSignal(logger: { info(obj: object, msg: string): void }): Promise<void> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      logger.info({ signal }, "shutting down");
      process.once(signal, () => process.exit(1));
      resolve();
    };
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // one line an operator can act on; configuration errors name the variable
    const message =
      error instanceof ConfigError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`palette-chatops: ${message}\n`);
    process.exit(1);
  },
);
