import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startBot as startFullBot } from "../../src/app/bot.ts";
import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { silentLogger } from "../../src/log.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import { AuditLog, type AuditRecord } from "../../src/store/audit.ts";
import { ChangeStore } from "../../src/store/changes.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { APPROVE_ACTION_ID, REJECT_ACTION_ID } from "../../src/views/change.ts";
import {
  ask as askAs,
  awsCluster,
  CHANNEL,
  changeAuditRows,
  closeChangesHarnesses,
  confirmOk,
  type ChangesHarness as Harness,
  type OpenedView,
  RESIZE_MS,
  startChangesHarness,
  tick,
  waitForCall,
} from "../support/changes-harness.ts";
import { startFakeSlack } from "../support/fake-slack.ts";
import { until } from "../support/start-process-harness.ts";

/**
 * Issue 25, "an audit a reviewer accepts": every step of a day-2 change is one audit row with
 * the requester, the approver and the Palette user acted as (request, refusals, approval,
 * rejection, expiry, Palette's answer, end); `/palette audit` hands the rows as a CSV to the
 * DM of someone on ALLOW_AUDIT and refuses everyone else; AUDIT_RETENTION_DAYS prunes.
 * Signed Slack requests into the bot, the real Palette client, the simulator behind it.
 */

/** may scale */
const ALICE = "W111";
/** may scale: the second person */
const BOB = "W222";
/** may not scale */
const CAROL = "W333";
/** on ALLOW_AUDIT, may change nothing */
const AUDITOR = "W444";

afterEach(closeChangesHarnesses);

function start(options: { approvals?: string[] } = {}): Promise<Harness> {
  return startChangesHarness({
    simulator: {
      clusters: 4,
      seed: 25,
      lifecycle: { provisioningMs: RESIZE_MS, deletingMs: RESIZE_MS },
    },
    access: { allowChanges: { scale: [ALICE, BOB] }, allowAudit: [AUDITOR] },
    approvals: options.approvals,
  });
}

const ask = (h: Harness, text: string, userId = ALICE) =>
  askAs(h, text, { userId, viewPrefix: "VA" });

const confirm = (h: Harness, view: OpenedView, userId = ALICE) => confirmOk(h, view, { userId });

/** the day-2 rows, oldest first */
async function changeRows(h: Harness): Promise<AuditRecord[]> {
  return (await changeAuditRows(h, 200)).reverse();
}

/** waits until the audit holds `count` change rows (the submit's work runs after its ack) */
async function rowsWhen(h: Harness, count: number): Promise<AuditRecord[]> {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const rows = await changeRows(h);
    if (rows.length >= count) return rows;
    if (Date.now() > deadline) {
      throw new Error(
        `the audit holds ${rows.length} change rows, not ${count}: ${JSON.stringify(rows)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const steps = (rows: AuditRecord[]) => rows.map((row) => `${row.step}:${row.outcome}`);

describe("the audit of a day-2 change", () => {
  it("a scale: one row per step from request to end, each naming change, cluster, project, requester and Palette user", async () => {
    const h = await start();
    const cluster = awsCluster(h, "audited");
    const { view } = await ask(h, "scale audited worker-pool 5");
    await confirm(h, view!);
    await waitForCall(h, "chat.postMessage", "Scaling");
    await rowsWhen(h, 2);
    await tick(h);
    h.clock.advance(RESIZE_MS + 1_000);
    await tick(h);
    await waitForCall(h, "chat.update", "Scaled");
    const rows = await rowsWhen(h, 3);
    expect(steps(rows)).toEqual(["request:created", "answer:accepted", "end:done"]);
    const [record] = await new ChangeStore(h.bot.db, h.clock).all();
    for (const row of rows) {
      expect(row).toMatchObject({
        userId: ALICE,
        target: "scale audited",
        changeId: record!.id,
        clusterUid: cluster.uid,
        projectUid: h.project,
        requester: ALICE,
      });
      expect(row.approver).toBeUndefined();
    }
    // the write went out as the bot's own service account, and the end says so too
    expect(rows[1]!.paletteUser).toBe("service account");
    expect(rows[2]!.paletteUser).toBe("service account");
    expect(JSON.parse(rows[2]!.detail!)).toMatchObject({ line: expect.stringContaining("5") });
    expect(h.writes).toHaveLength(1);
  });

  it("an approval: request, approval, Palette's answer and end, the approver on each after the approval", async () => {
    const h = await start({ approvals: ["scale"] });
    awsCluster(h, "two-keys");
    const { view } = await ask(h, "scale two-keys worker-pool 4");
    await confirm(h, view!);
    await waitForCall(h, "chat.postMessage", "Change needs approval");
    const [record] = await new ChangeStore(h.bot.db, h.clock).all();
    await h.bot.click(APPROVE_ACTION_ID, String(record!.id), { userId: BOB });
    await waitForCall(h, "chat.postMessage", "Scaling");
    await rowsWhen(h, 3);
    await tick(h);
    h.clock.advance(RESIZE_MS + 1_000);
    await tick(h);
    const rows = await rowsWhen(h, 4);
    expect(steps(rows)).toEqual([
      "request:created",
      "approved:granted",
      "answer:accepted",
      "end:done",
    ]);
    expect(rows.map((row) => row.userId)).toEqual([ALICE, BOB, ALICE, ALICE]);
    expect(rows.map((row) => row.approver)).toEqual([undefined, BOB, BOB, BOB]);
    expect(rows.every((row) => row.requester === ALICE && row.changeId === record!.id)).toBe(true);
  });

  it("a rejection and an expiry are one row each", async () => {
    const h = await start({ approvals: ["scale"] });
    awsCluster(h, "say-no");
    awsCluster(h, "too-late");
    for (const name of ["say-no", "too-late"]) {
      const { view } = await ask(h, `scale ${name} worker-pool 4`);
      await confirm(h, view!);
      await waitForCall(h, "chat.postMessage", name);
    }
    const records = await new ChangeStore(h.bot.db, h.clock).all();
    const sayNo = records.find((r) => r.plan.cluster.name === "say-no")!;
    await h.bot.click(REJECT_ACTION_ID, String(sayNo.id), { userId: BOB });
    await waitForCall(h, "chat.update", "Rejected by");
    h.clock.advance(31 * 60_000);
    await tick(h);
    await waitForCall(h, "chat.update", "Expired");
    const rows = await rowsWhen(h, 4);
    expect(rows.map((row) => `${row.target} ${row.step}:${row.outcome}`)).toEqual([
      "scale say-no request:created",
      "scale too-late request:created",
      "scale say-no rejected:rejected",
      "scale too-late expired:expired",
    ]);
    expect(rows[2]).toMatchObject({ userId: BOB, approver: BOB, requester: ALICE });
    expect(rows[3]).toMatchObject({ userId: ALICE, requester: ALICE });
    expect(h.writes).toEqual([]);
  });

  it("refusals: permission, freeze, scope (PALETTE_PROJECTS) and drift, each one row with its reason", async () => {
    const h = await start();
    const cluster = awsCluster(h, "guarded");
    const iced = awsCluster(h, "iced");
    // permission: Carol may not scale
    await ask(h, "scale guarded worker-pool 5", CAROL);
    // freeze: the modal opens, a freeze lands, the confirmation is refused
    const frozen = await ask(h, "scale iced worker-pool 5");
    const froze = await h.bot.command("freeze iced until 2h release", {
      userId: BOB,
      channelId: CHANNEL,
    });
    await h.bot.responses(froze.responseId);
    await confirm(h, frozen.view!);
    await waitForCall(h, "chat.postEphemeral", "frozen by");
    // drift: a second change moves the pool before the first confirmation lands
    const first = await ask(h, "scale guarded worker-pool 5");
    const second = await ask(h, "scale guarded worker-pool 4");
    await confirm(h, second.view!);
    await waitForCall(h, "chat.postMessage", "Scaling");
    await confirm(h, first.view!);
    await waitForCall(h, "chat.postEphemeral", "changed since");
    // scope: PALETTE_PROJECTS no longer holds the cluster's project when the confirmation lands
    const outside = await ask(h, "scale guarded worker-pool 6");
    h.projects.splice(0, h.projects.length, "another-project");
    await confirm(h, outside.view!);
    await waitForCall(h, "chat.postEphemeral", "PALETTE_PROJECTS");

    const refusals = (await changeRows(h)).filter((row) => row.step === "refused");
    expect(
      refusals.map((row) => [row.userId, row.outcome, JSON.parse(row.detail!).reason]),
    ).toEqual([
      [CAROL, "denied", "permission"],
      [ALICE, "denied", "freeze"],
      [ALICE, "denied", "drift"],
      [ALICE, "denied", "scope"],
    ]);
    expect(refusals.map((row) => row.target)).toEqual([
      "scale guarded",
      "scale iced",
      "scale guarded",
      "scale guarded",
    ]);
    for (const row of refusals) expect(row.requester).toBe(row.userId);
    // the permission goes first, before the cluster is looked up: its name is all it has;
    // the refusals of a planned change name the cluster and its project
    expect(refusals[0]!.clusterUid).toBeUndefined();
    expect(refusals.slice(1).map((row) => row.clusterUid)).toEqual([
      iced.uid,
      cluster.uid,
      cluster.uid,
    ]);
    for (const row of refusals.slice(1)) expect(row.projectUid).toBe(h.project);
    expect(JSON.parse(refusals[2]!.detail!).changed.join(" ")).toContain("4 nodes");
    expect(h.writes).toHaveLength(1);
  });
});

describe("/palette audit", () => {
  it("someone not on ALLOW_AUDIT is refused, and nothing is read or sent", async () => {
    const h = await start();
    const find = vi.spyOn(h.bot.audit, "find");
    const answer = await h.bot.command("audit since 7d", { userId: ALICE, channelId: CHANNEL });
    const [reply] = await h.bot.responses(answer.responseId);
    const text = JSON.stringify(reply!.body);
    expect(text).toContain("not allowed to export the audit");
    expect(text).toContain("ALLOW_AUDIT");
    expect(find).not.toHaveBeenCalled();
    expect(h.bot.fake.callsTo("files.getUploadURLExternal")).toHaveLength(0);
    expect(h.bot.fake.callsTo("files.completeUploadExternal")).toHaveLength(0);
    expect(h.bot.fake.uploads.size).toBe(0);
    const [row] = await h.bot.audit.recent(1);
    expect(row).toMatchObject({ userId: ALICE, action: "audit-export", outcome: "denied" });
  });

  it("someone on it gets one CSV in their DM only, the rows' formulas escaped", async () => {
    const h = await start();
    awsCluster(h, "exported");
    const { view } = await ask(h, "scale exported worker-pool 4");
    await confirm(h, view!);
    await waitForCall(h, "chat.postMessage", "Scaling");
    await rowsWhen(h, 2);
    // a refused export whose words start like a formula: they reach the audit as typed
    const hostile = await h.bot.command("audit =SUM(1,2) since 1d", {
      userId: CAROL,
      channelId: CHANNEL,
    });
    await h.bot.responses(hostile.responseId);

    const answer = await h.bot.command("audit since 24h", { userId: AUDITOR, channelId: CHANNEL });
    const [reply] = await h.bot.responses(answer.responseId);
    expect(JSON.stringify(reply!.body)).toContain("sent to your DMs");
    const completes = h.bot.fake.callsTo("files.completeUploadExternal");
    expect(completes).toHaveLength(1);
    // the DM the bot opened with the auditor, and no channel
    expect(completes[0]!.body.channel_id).toBe(`D${AUDITOR}`);
    const [opened] = h.bot.fake.callsTo("conversations.open");
    expect(opened!.body.users).toBe(AUDITOR);
    expect(h.bot.fake.uploads.size).toBe(1);
    const csv = [...h.bot.fake.uploads.values()][0]!.toString("utf8");
    const lines = csv.split("\r\n");
    expect(lines[0]).toBe(
      "source,at,action,step,outcome,user,target,change_id,cluster_uid,project_uid,requester,approver,palette_user,detail",
    );
    expect(lines.filter((line) => line.includes(",change,"))).toHaveLength(2);
    expect(csv).toContain("bot,");
    expect(csv).toContain(",change,request,created,W111,scale exported,");
    expect(csv).toContain(",change,answer,accepted,W111,scale exported,");
    // the typed formula is a text cell: a leading ', quoted because it holds a comma
    expect(csv).toContain(`,audit-export,,denied,${CAROL},"'=SUM(1,2) since 1d",`);
    expect(csv).not.toMatch(/(^|,)=SUM/m);
    for (const post of h.bot.fake.callsTo("chat.postMessage")) {
      expect(JSON.stringify(post.body)).not.toContain("audit-export");
    }
  });
});

describe("AUDIT_RETENTION_DAYS", () => {
  it("the lease holder deletes the rows older than N days, and keeps the rest", async () => {
    const clock = new ManualClock(Date.UTC(2026, 10, 25, 12));
    const sim = await startSimulator({ clusters: 2, projects: 1, seed: 7 });
    const fake = await startFakeSlack();
    const stateDb = join(mkdtempSync(join(tmpdir(), "audit-retention-")), "state.sqlite");
    const seed = await openSqlite(stateDb);
    const seeded = new AuditLog(seed, clock);
    const day = 86_400_000;
    for (const [age, target] of [
      [31, "too old"],
      [29, "kept: 29 days"],
      [1, "kept: yesterday"],
    ] as const) {
      clock.set(Date.UTC(2026, 10, 25, 12) - age * day);
      await seeded.record({ userId: "W1", action: "ack", target, outcome: "granted" });
    }
    clock.set(Date.UTC(2026, 10, 25, 12));
    await seed.close();
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-retention-test",
      SLACK_SIGNING_SECRET: "retention-signing-secret",
      SLACK_API_URL: fake.apiUrl,
      PALETTE_API_URL: sim.url,
      PALETTE_API_KEY: sim.credentials.apiKey,
      STATE_DB: stateDb,
      PORT: "0",
      POLL_SCHEDULE: "0 0 1 1 *",
      RECONCILE_SCHEDULE: "0 0 1 1 *",
      AUDIT_RETENTION_DAYS: "30",
    });
    const bot = await startFullBot(config, silentLogger, clock, { auditPruneEveryMs: 50 });
    const reader = await openSqlite(stateDb);
    try {
      const targets = async () =>
        (await new AuditLog(reader, clock).recent(10)).map((row) => row.target);
      await until("the leader's first prune", async () => !(await targets()).includes("too old"));
      expect(await targets()).toEqual(["kept: yesterday", "kept: 29 days"]);
      // two days later, by the bot's clock: the 29-day row is past 30 days at the next round
      clock.advance(2 * day);
      await until("the next prune", async () => (await targets()).length === 1);
      expect(await targets()).toEqual(["kept: yesterday"]);
    } finally {
      await reader.close();
      await bot.stop();
      await fake.close();
      await sim.close();
    }
  });
});
