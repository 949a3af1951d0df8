/**
 * Prints the "Notifications" example (docs/notifications.md) of a card before and after Acknowledge, and at
 * recovery, as the console renders it: the real sender and the real acknowledge use case over an
 * in-memory store, posting to the console's Slack port. `npx tsx bench/readme-notifications.ts`.
 */
import { allowAll } from "../src/access/types.ts";
import { ManualClock } from "../src/clock.ts";
import { createConsolePoster } from "../src/console/notifications.ts";
import { silentLogger } from "../src/log.ts";
import type { CardPayload } from "../src/model/notification.ts";
import { createSender } from "../src/notify/delivery/outbox-sender.ts";
import { acknowledgeCard } from "../src/notify/oncall/acknowledge.ts";
import { cardStatus } from "../src/notify/oncall/card-status.ts";
import { AuditLog } from "../src/store/audit.ts";
import { OutboxStore } from "../src/store/outbox.ts";
import { openSqlite } from "../src/store/sqlite.ts";
import { ackThreadLine } from "../src/views/card-ack.ts";
import { notificationCard } from "../src/views/notification.ts";

const CHANNEL = "C0ONCALL";
const USER = "U024BE7LH";
const CONSOLE_URL = "https://console.spectrocloud.com/";
const clock = new ManualClock(Date.parse("2026-11-22T02:57:00.000Z"));
const db = await openSqlite(":memory:");
const out = (text: string) => process.stdout.write(text);
const poster = createConsolePoster(out);
const sender = createSender({
  db,
  slack: poster,
  clock,
  logger: silentLogger,
  consoleUrl: CONSOLE_URL,
  sleep: async (ms) => clock.advance(ms),
});
const outbox = new OutboxStore(db);

const cluster = {
  uid: "03764ee7ef0e78e18f4e4a64",
  name: "media-staging-vsphere",
  project: "077010d6177bcaefa06ac847",
  state: "Running",
  tags: ["staging", "team:platform"],
};
const news = async (payload: Omit<CardPayload, "at">) => {
  const at = new Date(clock.now()).toISOString();
  await outbox.add(
    { channel: CHANNEL, kind: "card", clusterUid: cluster.uid, payload: { ...payload, at } },
    at,
  );
};

out("── a poll finds the cluster unhealthy ──\n");
await news({
  cluster: { ...cluster, health: "UnHealthy" },
  previous: { state: "Running", health: "Healthy" },
  kinds: ["health-lost"],
  lines: ["Health lost: Healthy → UnHealthy"],
  worse: true,
  alerts: [],
});
await sender.drainAll();

out("\n── someone clicks Acknowledge (what the Slack edge does) ──\n");
clock.advance(5 * 60_000);
const decision = await acknowledgeCard(
  { db, policy: allowAll, audit: new AuditLog(db, clock), clock, logger: silentLogger },
  { channel: CHANNEL, userId: USER, clusterUid: cluster.uid },
);
if (decision.kind !== "acknowledged" || !decision.card.payload) throw new Error(decision.kind);
const status = await cardStatus(db, CHANNEL, cluster.uid, clock.now());
await poster.update({
  channel: CHANNEL,
  ts: decision.card.ts,
  ...notificationCard(decision.card.payload, { consoleUrl: CONSOLE_URL }, status),
});
await poster.postMessage({
  channel: CHANNEL,
  thread_ts: decision.card.ts,
  ...ackThreadLine(decision.ack),
});

out("\n── a later poll finds it Healthy again ──\n");
clock.advance(40 * 60_000);
await news({
  cluster: { ...cluster, health: "Healthy" },
  previous: { state: "Running", health: "UnHealthy" },
  kinds: ["health-recovered"],
  lines: ["Health recovered: UnHealthy → Healthy"],
  worse: false,
  alerts: [],
});
await sender.drainAll();
await db.close();
