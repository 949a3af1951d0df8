import { afterAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { AuditLog } from "../../../src/store/audit.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

afterAll(closeOpened);

const DAY = 86_400_000;

describe.each(BACKENDS)("the audit log on $name", (backend) => {
  it(
    "keeps a change's columns, and reads a row written before they existed as before",
    async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.UTC(2026, 10, 25, 12));
      const audit = new AuditLog(db, clock);
      // a row as the bot wrote it before migration 60: no step, no change columns
      await db.run(
        "INSERT INTO audit (at, user_id, action, target, outcome, detail) VALUES (?, ?, ?, ?, ?, ?)",
        ["2026-11-01T00:00:00.000Z", "W1", "change", "scale prod-1", "created", '{"changeId":7}'],
      );
      await audit.record({
        userId: "W2",
        action: "change",
        target: "scale prod-1",
        outcome: "accepted",
        step: "answer",
        changeId: 8,
        clusterUid: "uid-1",
        projectUid: "p-1",
        requester: "W2",
        approver: "W3",
        paletteUser: "vera@example.com",
      });
      const [newest, oldest] = await audit.recent(2);
      expect(oldest).toEqual({
        at: "2026-11-01T00:00:00.000Z",
        userId: "W1",
        action: "change",
        target: "scale prod-1",
        outcome: "created",
        detail: '{"changeId":7}',
      });
      expect(newest).toEqual({
        at: "2026-11-25T12:00:00.000Z",
        userId: "W2",
        action: "change",
        target: "scale prod-1",
        outcome: "accepted",
        detail: null,
        step: "answer",
        changeId: 8,
        clusterUid: "uid-1",
        projectUid: "p-1",
        requester: "W2",
        approver: "W3",
        paletteUser: "vera@example.com",
      });
      expect(await audit.paletteUserOf(8)).toBe("vera@example.com");
      expect(await audit.paletteUserOf(7)).toBeUndefined();
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );

  it(
    "finds rows since a time, about a cluster (by uid, or by name for old rows) or a person",
    async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.UTC(2026, 10, 20));
      const audit = new AuditLog(db, clock);
      const row = (userId: string, target: string, extra: object = {}) =>
        audit.record({ userId, action: "change", target, outcome: "created", ...extra });
      await row("W1", "scale too-old");
      clock.advance(2 * DAY);
      await row("W1", "scale web_1");
      await row("W2", "approve scale web_1");
      await row("W3", "delete webX1");
      await row("W4", "scale other", { clusterUid: "uid-web", requester: "W9" });
      await row("W5", "kubeconfig", { approver: "W9" });
      const since = new Date(Date.UTC(2026, 10, 21)).toISOString();
      const all = await audit.find({ since, limit: 100 });
      expect(all.map((r) => r.target)).toEqual([
        "scale web_1",
        "approve scale web_1",
        "delete webX1",
        "scale other",
        "kubeconfig",
      ]);
      // `_` is a LIKE wildcard: escaped, so webX1 is not web_1
      const web = await audit.find({ since, cluster: "web_1", limit: 100 });
      expect(web.map((r) => r.target)).toEqual(["scale web_1", "approve scale web_1"]);
      const byUid = await audit.find({ since, cluster: "uid-web", limit: 100 });
      expect(byUid.map((r) => r.target)).toEqual(["scale other"]);
      const w9 = await audit.find({ since, userId: "W9", limit: 100 });
      expect(w9.map((r) => r.userId)).toEqual(["W4", "W5"]);
      // the newest rows win a limit, still oldest first
      const two = await audit.find({ since, limit: 2 });
      expect(two.map((r) => r.userId)).toEqual(["W4", "W5"]);
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );

  it(
    "pages an export oldest first with every filter in the query (issue 31)",
    async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.UTC(2026, 10, 20));
      const audit = new AuditLog(db, clock);
      const row = (target: string, extra: object = {}) =>
        audit.record({ userId: "W1", action: "read", target, outcome: "granted", ...extra });
      await row("too-old");
      clock.advance(DAY);
      for (let i = 0; i < 5; i++) await row(`r${i}`, { projectUid: i % 2 ? "p1" : "p2" });
      await row("vera", { paletteUser: "Vera@Example.com" });
      clock.advance(DAY);
      await row("too-new");
      const query = {
        since: new Date(Date.UTC(2026, 10, 21)).toISOString(),
        until: new Date(Date.UTC(2026, 10, 21, 12)).toISOString(),
      };
      const first = await audit.page(query, undefined, 4);
      expect(first.map((r) => r.record.target)).toEqual(["r0", "r1", "r2", "r3"]);
      const rest = await audit.page(query, first.at(-1)!.cursor, 4);
      expect(rest.map((r) => r.record.target)).toEqual(["r4", "vera"]);
      const p1 = await audit.page({ ...query, projectUid: "p1" }, undefined, 10);
      expect(p1.map((r) => r.record.target)).toEqual(["r1", "r3"]);
      const vera = await audit.page({ ...query, paletteUser: "vera@example.COM" }, undefined, 10);
      expect(vera.map((r) => r.record.target)).toEqual(["vera"]);
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );

  it(
    "prunes the rows older than a time, and only those",
    async () => {
      const db = await backend.open();
      const clock = new ManualClock(Date.UTC(2025, 0, 1));
      const audit = new AuditLog(db, clock);
      await audit.record({ userId: "W1", action: "ack", target: "a", outcome: "granted" });
      clock.advance(10 * DAY);
      await audit.record({ userId: "W1", action: "ack", target: "b", outcome: "granted" });
      clock.advance(10 * DAY);
      await audit.record({ userId: "W1", action: "ack", target: "c", outcome: "granted" });
      expect(await audit.prune(clock.now() - 15 * DAY)).toBe(1);
      expect((await audit.recent(10)).map((r) => r.target)).toEqual(["c", "b"]);
      expect(await audit.prune(clock.now() - 15 * DAY)).toBe(0);
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );
});
