import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningBot, startBot } from "../../src/app/bot.ts";
import { migrateStoreCli } from "../../src/app/store-copy.ts";
import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { CardStore } from "../../src/store/cards.ts";
import { ChangeStore } from "../../src/store/changes.ts";
import { DigestStore } from "../../src/store/digests.ts";
import { IdentityStore } from "../../src/store/identities.ts";
import { IdentityCipher } from "../../src/store/identity-cipher.ts";
import { OutboxStore } from "../../src/store/outbox.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { SubscriptionStore } from "../../src/store/subscriptions.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";
import { until } from "../support/start-process-harness.ts";
import { dumpStore, pendingDelete } from "../support/store-dump.ts";

/**
 * `palette-chatops migrate-store --from <SQLite file> --to <postgres URL>` (issue 38 item 5): a
 * SQLite file with a week of a bot's state (its polls' snapshots, subscriptions, a week of audit,
 * a change waiting for approval, a linked identity, a notification not yet sent) copied into a
 * fresh database on the embedded PostgreSQL; every row is there, the target then refuses a second
 * copy, and two replicas started on it carry on: one leader, the waiting notification sent once,
 * every subscription, card and pending change kept, the identity still sealed and readable.
 */

const NEVER = "0 0 1 1 *";
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 20, 9);
const IDENTITY_KEY = Buffer.alloc(32, 7).toString("base64");
const LINKED_KEY = "palette-key-of-W7-in-the-clear";

let sim: RunningSimulator;
let fake: FakeSlack;
let dir: string;
let file: string;
let url: string;
const bots: RunningBot[] = [];
const opened: SqlDb[] = [];

const env = (store: string, slackToken: string) => ({
  SLACK_BOT_TOKEN: slackToken,
  SLACK_SIGNING_SECRET: "migrate-signing-secret",
  SLACK_API_URL: fake.apiUrl,
  PALETTE_API_URL: sim.url,
  PALETTE_API_KEY: sim.credentials.apiKey,
  PALETTE_PROJECTS: sim.control.projects().join(","),
  STATE_DB: store,
  PORT: "0",
  POLL_SCHEDULE: NEVER,
  RECONCILE_SCHEDULE: NEVER,
  LEADER_LEASE_TTL_MS: "1500",
  LEADER_RENEW_MS: "200",
  IDENTITY: "linked",
  IDENTITY_KEY,
});

async function ready(bot: RunningBot): Promise<void> {
  await until("/readyz 200", async () => {
    const response = await fetch(`http://127.0.0.1:${bot.port}/readyz`);
    await response.body?.cancel();
    return response.status === 200;
  });
}

/** A week of a bot's life on the SQLite file: a real run's first poll, then a week of use. */
async function weekOfState(): Promise<void> {
  const clock = new ManualClock(NOW - 7 * DAY);
  // the bot itself, on the file: its first poll (run at election) stores what it saw
  const first = await startBot(loadConfig(env(file, "xoxb-week")), silentLogger, clock, {
    replicaId: "sqlite-replica",
  });
  await ready(first);
  await first.stop();

  const db = await openSqlite(file);
  try {
    const subscriptions = new SubscriptionStore(db, clock);
    const audit = new AuditLog(db, clock);
    for (let day = 0; day < 7; day++) {
      clock.set(NOW - (7 - day) * DAY);
      await subscriptions.add({
        channel: `C0WEEK${day}`,
        kind: day % 2 === 0 ? "clusters" : "alerts",
        createdBy: "W1",
      });
      for (let n = 0; n < 5; n++) {
        await audit.record({
          userId: `W${n}`,
          action: "ack",
          target: `c${day}-${n}`,
          outcome: "granted",
        });
      }
    }
    clock.set(NOW - DAY);
    await pendingDelete(db, clock, "pending scale", "C0WEEK0");
    await new IdentityStore(db, new IdentityCipher(new Secret(IDENTITY_KEY)), clock).put({
      slackUserId: "W7",
      paletteUserUid: "u7",
      paletteUserName: "seven",
      method: "key",
      apiKey: new Secret(LINKED_KEY),
    });
    // the card a notification posted on day 1, edited in place by later changes
    await new CardStore(db).put(
      { channel: "C0WEEK0", clusterUid: "c1", ts: "1763600000.000100", owner: "launch" },
      new Date(NOW - 6 * DAY).toISOString(),
    );
    await new DigestStore(db).set({
      channel: "C0WEEK1",
      cadence: "daily",
      hour: 9,
      minute: 0,
      timeZone: "Europe/Berlin",
      setBy: "W1",
      setAt: new Date(NOW - 5 * DAY).toISOString(),
    });
    // the bot stopped before this reached Slack: the replicas must send it, once
    await new OutboxStore(db).add(
      { channel: "C0WEEK0", kind: "post", payload: { text: "waiting since the move" } },
      new Date(NOW - DAY).toISOString(),
    );
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  sim = await startSimulator({ clusters: 8, projects: 1, seed: 38 });
  fake = await startFakeSlack();
  dir = mkdtempSync(join(tmpdir(), "migrate-store-"));
  file = join(dir, "palette-chatops.sqlite");
  ({ url } = await freshDatabase());
}, POSTGRES_SETUP_TIMEOUT_MS);

afterAll(async () => {
  for (const bot of bots.splice(0)) await bot.stop().catch(() => {});
  for (const db of opened) await db.close().catch(() => {});
  await fake?.close();
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("migrate-store: from one replica on SQLite to two on PostgreSQL", () => {
  it(
    "copies every row of a week of state, refuses a second copy, and two replicas carry on",
    async () => {
      await weekOfState();
      const source = await openSqlite(file);
      opened.push(source);
      const before = await dumpStore(source);
      const filled = Object.entries(before).filter(([, rows]) => rows.length > 0);
      // a week of state: the tables the move must keep have rows
      for (const table of [
        "notify_subscriptions",
        "audit",
        "changes",
        "identity_links",
        "notify_outbox",
        "notify_snapshots",
        "notify_cards",
        "notify_digest_schedules",
      ]) {
        expect(before[table]?.length ?? 0, table).toBeGreaterThan(0);
      }

      const out: string[] = [];
      expect(
        await migrateStoreCli(["--from", file, "--to", url], {}, (line) => out.push(line)),
      ).toBe(0);
      const total = filled.reduce((sum, [, rows]) => sum + rows.length, 0);
      expect(out.at(-1)).toBe(
        `copied ${file} into PostgreSQL: ${total} rows in ${Object.keys(before).length} tables`,
      );
      expect(out.join("\n")).not.toContain(url);

      const target = await openPostgres(url, { max: 2 });
      opened.push(target);
      expect(await dumpStore(target)).toEqual(before);
      // the linked key stays sealed: the same ciphertext, no key in the clear
      const sealed = await target.all<{ key_sealed: string }>(
        "SELECT key_sealed FROM identity_links",
      );
      expect(JSON.stringify(sealed)).not.toContain(LINKED_KEY);

      // a second copy into the same database (named by DATABASE_URL this time) is refused, and
      // changes nothing
      const again: string[] = [];
      expect(
        await migrateStoreCli(["--from", file], { DATABASE_URL: url }, (line) => again.push(line)),
      ).toBe(1);
      expect(again.join("\n")).toMatch(/^refused: the target store is not empty \(/);
      expect(await dumpStore(target)).toEqual(before);

      // two replicas on the database carry on
      const clock = new ManualClock(NOW);
      for (const replica of ["a", "b"]) {
        const bot = await startBot(
          loadConfig(env(url, `xoxb-replica-${replica}`)),
          silentLogger,
          clock,
          { replicaId: `replica-${replica}` },
        );
        bots.push(bot);
      }
      await ready(bots[0]!);
      const sentWaiting = () =>
        fake
          .callsTo("chat.postMessage")
          .filter((call) => call.body.text === "waiting since the move");
      await until("the waiting notification to be sent", () => sentWaiting().length > 0, 15_000);
      // the follower's sender does not run: a while longer, still once
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(sentWaiting()).toHaveLength(1);

      expect(await new SubscriptionStore(target, clock).all()).toHaveLength(7);
      expect(await new CardStore(target).get("C0WEEK0", "c1")).toMatchObject({
        ts: "1763600000.000100",
        owner: "launch",
      });
      const pending = await new ChangeStore(target, clock).byKey("pending scale");
      expect(pending?.status).toBe("awaiting_approval");
      const link = await new IdentityStore(
        target,
        new IdentityCipher(new Secret(IDENTITY_KEY)),
        clock,
      ).get("W7");
      expect(link?.apiKey.reveal()).toBe(LINKED_KEY);
      // new rows take ids past the copied ones (the identity sequences were moved)
      const audit = new AuditLog(target, clock);
      const maxBefore = (await source.get<{ id: number }>("SELECT MAX(id) AS id FROM audit"))!.id;
      await audit.record({
        userId: "W1",
        action: "ack",
        target: "after the move",
        outcome: "granted",
      });
      const [latest] = await audit.recent(1);
      expect(latest?.target).toBe("after the move");
      const newId = await target.get<{ id: string }>("SELECT MAX(id) AS id FROM audit");
      expect(Number(newId?.id)).toBe(maxBefore + 1);
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );
});
