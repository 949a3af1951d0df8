/**
 * The notification bot alone, as a child process the SIGKILL test can kill: poller + sender
 * against URLs from the environment, state in the SQLite file STATE_DB.
 *   PALETTE_API_URL, PALETTE_API_KEY, SLACK_API_URL, STATE_DB, PALETTE_PROJECTS (comma list),
 *   POLL_SCHEDULE (default every second), RECONCILE_SCHEDULE (default the poller's, every 10
 *   minutes; the first cycle after each start reconciles), NOTIFY_MIN_GAP_MS (default 1000)
 */
import { systemClock } from "../../src/clock.ts";
import { createEdgeWatch } from "../../src/edge/watch.ts";
import { silentLogger } from "../../src/log.ts";
import { createSender } from "../../src/notify/delivery/outbox-sender.ts";
import { createPoller } from "../../src/notify/poll/poll.ts";
import { createPaletteClient } from "../../src/palette/client.ts";
import { Secret } from "../../src/secret.ts";
import { createSlackPoster } from "../../src/slack/notify-poster.ts";
import { openSqlite } from "../../src/store/sqlite.ts";

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const db = await openSqlite(env("STATE_DB"));
const palette = createPaletteClient({
  baseUrl: env("PALETTE_API_URL"),
  credentials: { kind: "apiKey", apiKey: new Secret(env("PALETTE_API_KEY")) },
  logger: silentLogger,
  rateLimit: false,
  retries: 0,
});
const sender = createSender({
  db,
  slack: createSlackPoster({ token: new Secret("xoxb-child"), apiUrl: env("SLACK_API_URL") }),
  clock: systemClock,
  logger: silentLogger,
  minGapMs: Number(process.env.NOTIFY_MIN_GAP_MS ?? 1000),
  backoffBaseMs: 100,
  idlePollMs: 100,
});
const poller = createPoller({
  palette,
  db,
  clock: systemClock,
  logger: silentLogger,
  projects: (process.env.PALETTE_PROJECTS ?? "").split(",").filter(Boolean),
  schedule: process.env.POLL_SCHEDULE ?? "* * * * * *",
  reconcileSchedule: process.env.RECONCILE_SCHEDULE,
  onCommitted: () => sender.wake(),
  ...(process.env.EDGE_GRACE_MS !== undefined
    ? {
        edge: createEdgeWatch({
          palette,
          db,
          clock: systemClock,
          logger: silentLogger,
          scopes: (process.env.PALETTE_PROJECTS ?? "").split(",").filter(Boolean),
          siteTag: "site",
          graceMs: Number(process.env.EDGE_GRACE_MS),
        }),
      }
    : {}),
});
sender.start();
poller.start();
process.stdout.write("ready\n");
