import { afterEach, describe, expect, it } from "vitest";
import { AuditExportRoom } from "../../src/commands/audit-room.ts";
import {
  closeChangesHarnesses,
  type ChangesHarness as Harness,
  startChangesHarness,
} from "../support/changes-harness.ts";
import { until } from "../support/start-process-harness.ts";

/**
 * The bot's side of `/palette audit` on a busy bot (issue 31, item 16): every filter (`since`,
 * `until`, `project:`, `user:`) is applied by the store, the rows are paged out oldest first,
 * and an export that stops at its bound says so in the reply and in the file. Signed Slack
 * requests, the simulator behind the real client.
 */

const CHANNEL = "C111";
const AUDITOR = "W444";
const DAY_MS = 86_400_000;

afterEach(closeChangesHarnesses);

function start(maxConcurrentCommands?: number): Promise<Harness> {
  return startChangesHarness({
    simulator: { clusters: 6, seed: 31 },
    access: { allowAudit: [AUDITOR] },
    ...(maxConcurrentCommands !== undefined ? { bot: () => ({ maxConcurrentCommands }) } : {}),
  });
}

/**
 * `count` rows at `at` (one SQL statement, so 50,000 take a moment): a `read` by `user`,
 * about `project`, sent as `paletteUser`
 */
async function seedRows(
  h: Harness,
  count: number,
  at: number,
  extra: { project?: string; paletteUser?: string; target?: string } = {},
): Promise<void> {
  await h.bot.db.run(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO audit (at, user_id, action, target, outcome, project_uid, palette_user)
     SELECT ?, 'W555', 'read', ? || i, 'granted', ?, ? FROM n`,
    [
      count,
      new Date(at).toISOString(),
      extra.target ?? "seeded ",
      extra.project ?? null,
      extra.paletteUser ?? null,
    ],
  );
}

async function exportAs(h: Harness, text: string): Promise<string> {
  const answer = await h.bot.command(text, { userId: AUDITOR, channelId: CHANNEL });
  const [reply] = await h.bot.responses(answer.responseId, 1, 30_000);
  return JSON.stringify(reply!.body);
}

function botLines(h: Harness): string[] {
  const csv = [...h.bot.fake.uploads.values()][0]!.toString("utf8");
  return csv.split("\r\n").filter((line) => line.startsWith("bot,"));
}

describe("/palette audit: the bot's rows on a busy bot", () => {
  it("since 300d until 200d finds the old rows under 50,001 newer ones", async () => {
    const h = await start();
    const now = h.clock.now();
    await seedRows(h, 3, now - 250 * DAY_MS, { target: "old " });
    await seedRows(h, 50_001, now - DAY_MS);
    const text = await exportAs(h, "audit since 300d until 200d");
    expect(text).toContain("3 audit rows of this bot");
    const lines = botLines(h);
    expect(lines).toHaveLength(3);
    expect(lines.every((line) => line.includes(",old "))).toBe(true);
  }, 60_000);

  it("project: and user: are applied by the store, not after the newest 50,000", async () => {
    const h = await start();
    const now = h.clock.now();
    await seedRows(h, 2, now - 5 * DAY_MS, { project: h.project, target: "wanted " });
    await seedRows(h, 4, now - 5 * DAY_MS, { paletteUser: "Ann@Example.com", target: "ann " });
    await seedRows(h, 50_001, now - DAY_MS, { project: "p-other" });
    expect(await exportAs(h, `audit project:${h.project} since 7d`)).toContain(
      "2 audit rows of this bot",
    );
    expect(botLines(h).every((line) => line.includes(",wanted "))).toBe(true);
    h.bot.fake.uploads.clear();
    expect(await exportAs(h, "audit user:ann@example.com since 7d")).toContain(
      "4 audit rows of this bot",
    );
    expect(botLines(h).every((line) => line.includes(",ann "))).toBe(true);
  }, 60_000);

  it("an export cut at its bound says where it stopped, in the reply and in the file", async () => {
    const h = await start();
    const now = h.clock.now();
    await seedRows(h, 50_000, now - 3 * DAY_MS, { target: "first " });
    await seedRows(h, 5, now - DAY_MS, { target: "later " });
    const text = await exportAs(h, "audit since 7d");
    expect(text).toContain("50000 audit rows of this bot");
    expect(text).toMatch(/stopped early/i);
    const since = new Date(now - 3 * DAY_MS).toISOString();
    expect(text).toContain(since);
    const lines = botLines(h);
    expect(lines).toHaveLength(50_000);
    expect(lines.some((line) => line.includes(",later "))).toBe(false);
    const csv = [...h.bot.fake.uploads.values()][0]!.toString("utf8");
    const last = csv.split("\r\n").filter(Boolean).at(-1)!;
    expect(last.startsWith("export,")).toBe(true);
    expect(last).toMatch(/stopped early/i);
    expect(last).toContain(since);
  }, 60_000);
});

/**
 * Issue 37, item 5: an export waits on Palette up to ten minutes and fills the temp volume, so at
 * most two run at once on a replica, outside the command slots, and one is refused up front when
 * the temp volume cannot hold it. The bot answers the next command either way.
 */
describe("/palette audit: room for exports", () => {
  it("two exports at once, the third told one is running, and neither takes a command slot", async () => {
    const h = await start(1);
    const audits = "/v1/audits";
    h.sim.control.addFault({ pathPrefix: audits, kind: "hold", times: 2 });
    const first = await h.bot.command("audit since 7d", { userId: AUDITOR, channelId: CHANNEL });
    const second = await h.bot.command("audit since 7d", { userId: AUDITOR, channelId: CHANNEL });
    await until("both exports waiting on Palette", () => h.sim.control.held() === 2);
    // the one command slot is free: another verb is answered while both exports wait
    const help = await h.bot.command("help", { userId: AUDITOR, channelId: CHANNEL });
    expect(await h.bot.responses(help.responseId, 1, 10_000)).toHaveLength(1);
    const third = await exportAs(h, "audit since 7d");
    expect(third).toContain("An audit export is already running");
    expect(third).toContain("try again in a few minutes");
    h.sim.control.release();
    for (const { responseId } of [first, second]) {
      const [reply] = await h.bot.responses(responseId, 1, 30_000);
      expect(JSON.stringify(reply!.body)).toContain("were sent to your DMs");
    }
    expect(h.bot.fake.uploads.size).toBe(2);
    // both done and their files deleted: there is room again
    expect(await exportAs(h, "audit since 7d")).toContain("were sent to your DMs");
  }, 60_000);

  it("refused up front when the temp volume cannot hold the export; the bot answers on", async () => {
    const h = await start();
    // a temp volume with 2 MB free (statfs as the room reads it), the default AUDIT_EXPORT_MAX
    h.bot.bot.edge.commandDeps.auditExportRoom = new AuditExportRoom({
      freeBytes: async () => 2_000_000,
    });
    const refused = await exportAs(h, "audit since 7d");
    expect(refused).toContain("has no room for this export");
    expect(refused).toMatch(/up to \d+ MB and 2 MB are free/);
    expect(h.sim.control.requests().filter((r) => r.path === "/v1/audits")).toEqual([]);
    expect(h.bot.fake.uploads.size).toBe(0);
    const help = await h.bot.command("help", { userId: AUDITOR, channelId: CHANNEL });
    expect(await h.bot.responses(help.responseId, 1, 10_000)).toHaveLength(1);
    // room again (the volume's real free space): the same export goes out
    h.bot.bot.edge.commandDeps.auditExportRoom = new AuditExportRoom();
    expect(await exportAs(h, "audit since 7d")).toContain("were sent to your DMs");
  }, 60_000);

  it("a refused or mistyped audit takes a command slot like any verb: only a granted export leaves it", async () => {
    const h = await start(1);
    // the one slot held by a command waiting on Palette
    h.sim.control.addFault({ pathPrefix: "/v1/dashboard", kind: "hold", times: 1 });
    const busy = await h.bot.command("clusters", { userId: AUDITOR, channelId: CHANNEL });
    await until("the command waiting on Palette", () => h.sim.control.held() === 1);
    const mistyped = await h.bot.command("audit since banana", {
      userId: AUDITOR,
      channelId: CHANNEL,
    });
    const refused = await h.bot.command("audit since 7d", { userId: "W999", channelId: CHANNEL });
    h.sim.control.release();
    await h.bot.responses(busy.responseId, 1, 10_000);
    const [usage] = await h.bot.responses(mistyped.responseId, 1, 10_000);
    const [denied] = await h.bot.responses(refused.responseId, 1, 10_000);
    expect(JSON.stringify(denied!.body)).toContain("not allowed to export the audit");
    expect(usage).toBeDefined();
    // both waited for the slot: answered after the command that held it
    const order = h.bot.fake.callsTo("response").map((call) => call.body._responseId);
    const at = (id: string) => order.indexOf(id);
    expect(at(mistyped.responseId)).toBeGreaterThan(at(busy.responseId));
    expect(at(refused.responseId)).toBeGreaterThan(at(busy.responseId));
  }, 60_000);
});
