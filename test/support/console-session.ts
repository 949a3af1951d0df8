import { PassThrough, Readable } from "node:stream";
import { type ConsoleSession, openConsoleSession, runConsoleOn } from "../../src/app/console.ts";
import { type Clock, systemClock } from "../../src/clock.ts";
import type { ApprovalConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { Secret } from "../../src/secret.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";

/**
 * The console as `npm run demo` runs it, against a running simulator: the lines are typed in,
 * everything it printed comes back. The change follower only runs its last round at the end.
 */
export async function consoleTranscript(
  sim: RunningSimulator,
  lines: string[],
  options: {
    clock?: Clock;
    approvals?: ApprovalConfig;
    /** e.g. turn IDENTITY=linked on before the first line */
    prepare?: (session: ConsoleSession) => void;
  } = {},
): Promise<string> {
  const session = await openConsoleSession({
    apiUrl: sim.url,
    credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
    projects: sim.control.projects(),
    consoleUrl: "https://console.spectrocloud.com/",
    stateDb: { kind: "sqlite", path: ":memory:" },
    logger: silentLogger,
    clock: options.clock ?? systemClock,
    approvals: options.approvals,
  });
  options.prepare?.(session);
  const output = new PassThrough();
  const chunks: string[] = [];
  output.on("data", (chunk) => chunks.push(String(chunk)));
  try {
    await runConsoleOn(session, Readable.from([lines.join("\n")]), output, {
      followSchedule: () => ({ stop() {} }),
    });
  } finally {
    await session.close();
  }
  return chunks.join("");
}
