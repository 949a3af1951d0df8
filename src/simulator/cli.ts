import { z } from "zod";
import { startSimulator } from "./server.ts";
import type { RunningSimulator } from "./types.ts";

/**
 * `palette-chatops simulator` / `npm run simulator`: serves the Palette API simulator until
 * SIGINT/SIGTERM. The printed credentials are the simulator's own fake ones.
 */

const USAGE =
  "usage: simulator [--port N] [--host H] [--clusters N] [--projects N] [--seed N] [--animate MS] [--unhealthy FRACTION] [--churn PER_MINUTE] [--rate-limits]";

const FRACTION = "must be a fraction between 0 and 1, e.g. 0.2 for 20 % of clusters";
const RATE = "must be a number of changes per minute between 0 and 600000, e.g. 60";

const optionsSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8080),
  host: z.string().min(1).default("127.0.0.1"),
  clusters: z.coerce.number().int().min(0).max(100_000).default(40),
  projects: z.coerce.number().int().min(1).max(100).default(3),
  seed: z.coerce.number().int().default(1),
  animate: z.coerce.number().int().min(100).optional(),
  unhealthy: z.coerce
    .number({ error: FRACTION })
    .min(0, { error: FRACTION })
    .max(1, { error: FRACTION })
    .optional(),
  churn: z.coerce
    .number({ error: RATE })
    .min(0, { error: RATE })
    .max(600_000, { error: RATE })
    .optional(),
  rateLimits: z.boolean().default(false),
});
export type CliOptions = z.infer<typeof optionsSchema>;

const FLAGS: Record<string, keyof CliOptions> = {
  "--port": "port",
  "--host": "host",
  "--clusters": "clusters",
  "--projects": "projects",
  "--seed": "seed",
  "--animate": "animate",
  "--unhealthy": "unhealthy",
  "--churn": "churn",
};

/** Parses argv (without node and script); throws an Error with a one-line message on bad input. */
export function parseSimulatorArgs(argv: readonly string[]): CliOptions {
  const raw: Record<string, unknown> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--rate-limits") {
      raw.rateLimits = true;
      continue;
    }
    const [flag, inline] = arg.includes("=") ? arg.split("=", 2) : [arg, undefined];
    const key = FLAGS[flag ?? ""];
    if (!key) throw new Error(`unknown option ${arg}; ${USAGE}`);
    const value = inline ?? argv[++i];
    if (value === undefined || value.trim() === "") {
      throw new Error(`${flag} wants a value; ${USAGE}`);
    }
    raw[key] = value;
  }
  const parsed = optionsSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`--${String(issue?.path[0] ?? "")}: ${issue?.message ?? "invalid"}; ${USAGE}`);
  }
  return parsed.data;
}

export function describeSimulator(sim: RunningSimulator, options: CliOptions): string {
  const { credentials } = sim;
  return [
    `Palette API simulator listening on ${sim.url}`,
    `  fleet: ${options.clusters} clusters in ${options.projects} projects (seed ${options.seed})${
      options.animate ? `, animated every ${options.animate} ms` : ""
    }${options.unhealthy !== undefined ? `, ${options.unhealthy * 100} % not Running+Healthy` : ""}${
      options.churn ? `, ${options.churn} changes per minute` : ""
    }`,
    `  projects: ${sim.control.projects().join(", ")}`,
    "  fake credentials (simulator only):",
    `    PALETTE_API_URL=${sim.url}`,
    `    PALETTE_API_KEY=${credentials.apiKey}`,
    `    or PALETTE_EMAIL=${credentials.email} PALETTE_ORG=${credentials.org} PALETTE_PASSWORD=${credentials.password}`,
    `  control: ${sim.url}/__sim/clusters (see src/simulator/README.md)`,
  ].join("\n");
}

/** Runs until SIGINT/SIGTERM; resolves with the exit code. */
export async function runSimulatorCli(
  argv: readonly string[],
  out: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  let options: CliOptions;
  try {
    options = parseSimulatorArgs(argv);
  } catch (error) {
    out((error as Error).message);
    return 2;
  }
  const sim = await startSimulator({
    port: options.port,
    host: options.host,
    clusters: options.clusters,
    projects: options.projects,
    seed: options.seed,
    enforceRateLimits: options.rateLimits,
    ...(options.animate ? { animateEveryMs: options.animate } : {}),
    ...(options.unhealthy !== undefined ? { unhealthy: options.unhealthy } : {}),
    ...(options.churn ? { churnPerMinute: options.churn } : {}),
  });
  out(describeSimulator(sim, options));
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
  await sim.close();
  out("simulator stopped");
  return 0;
}
