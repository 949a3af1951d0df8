import { afterEach, describe, expect, it } from "vitest";
import {
  closeChangesHarnesses,
  type ChangesHarness as Harness,
  linkWithOwnKey,
  startChangesHarness,
  strictIdentity,
} from "../support/changes-harness.ts";

/**
 * Palette's side of `/palette audit` (issue 27): Palette's own audit log paged through
 * GET /v1/audits into the same CSV as the bot's rows, with a `source` column; signed Slack
 * requests, the simulator's audit log behind the real client.
 */

const CHANNEL = "C111";
const AUDITOR = "W444";
const ALICE = "W111";
/** the simulator's user who may edit */
const EDITOR = { uid: "editor", name: "Eddie Editor", email: "editor@example.com" };

afterEach(closeChangesHarnesses);

function start(options: { strict?: boolean } = {}): Promise<Harness> {
  return startChangesHarness({
    simulator: { clusters: 12, seed: 31 },
    access: { allowAudit: [AUDITOR] },
    bot: options.strict ? strictIdentity(9) : undefined,
  });
}

function seedEntries(h: Harness, count: number): string {
  const cluster = h.sim.control.addCluster({
    name: "audited",
    projectUid: h.project,
    provider: "aws",
  });
  const starts = ['=HYPERLINK("http://evil.test")', "+1+1", "-2-2", "@SUM(A1)", "plain"];
  for (let i = 0; i < count; i++) {
    h.sim.control.addAudit({
      clusterUid: cluster.uid,
      actionType: i % 2 === 0 ? "update" : "activity",
      actionMsg: `${starts[i % starts.length]} entry ${i}`,
      email: i % 3 === 0 ? "editor@example.com" : "viewer@example.com",
      // spread over the last six days
      at: h.clock.now() - 60_000 - i * 250_000,
    });
  }
  return cluster.uid;
}

const auditCalls = (h: Harness) =>
  h.sim.control.requests().filter((request) => request.path === "/v1/audits");

async function exportAs(h: Harness, text: string, userId: string): Promise<string> {
  const answer = await h.bot.command(text, { userId, channelId: CHANNEL });
  const [reply] = await h.bot.responses(answer.responseId, 1, 10_000);
  return JSON.stringify(reply!.body);
}

describe("/palette audit: Palette's side", () => {
  it("someone not on ALLOW_AUDIT is refused, and Palette's audit is not read", async () => {
    const h = await start();
    seedEntries(h, 10);
    h.sim.control.clearRequests();
    const text = await exportAs(h, `audit project:${h.project} since 7d`, ALICE);
    expect(text).toContain("not allowed to export the audit");
    expect(auditCalls(h)).toEqual([]);
    expect(h.bot.fake.uploads.size).toBe(0);
  });

  it("project:<p> since 7d over 2,000 entries pages through all of them into one CSV in the DM only, formulas escaped", async () => {
    const h = await start();
    seedEntries(h, 2_000);
    h.sim.control.clearRequests();
    const text = await exportAs(h, `audit project:${h.project} since 7d`, AUDITOR);
    expect(text).toContain("2000 of Palette's");
    expect(text).toContain("sent to your DMs");
    // every page of 50, each asked for the project and the range
    const calls = auditCalls(h);
    expect(calls).toHaveLength(40);
    expect(calls.every((call) => call.status === 200)).toBe(true);
    const completes = h.bot.fake.callsTo("files.completeUploadExternal");
    expect(completes).toHaveLength(1);
    expect(completes[0]!.body.channel_id).toBe(`D${AUDITOR}`);
    expect(h.bot.fake.uploads.size).toBe(1);
    for (const post of h.bot.fake.callsTo("chat.postMessage")) {
      expect(JSON.stringify(post.body)).not.toContain("entry 1");
    }
    const csv = [...h.bot.fake.uploads.values()][0]!.toString("utf8");
    const lines = csv.split("\r\n").filter((line) => line !== "");
    expect(lines[0]).toBe(
      "source,at,action,step,outcome,user,target,change_id,cluster_uid,project_uid,requester,approver,palette_user,detail",
    );
    const fromPalette = lines.filter((line) => line.startsWith("palette,"));
    expect(fromPalette).toHaveLength(2_000);
    expect(lines.filter((line) => line.startsWith("bot,"))).toHaveLength(0);
    expect(csv).toContain(",update,,,editor@example.com,spectrocluster audited,");
    // no cell starts with a formula character: each got a leading '
    for (const start of ["=", "+", "-", "@"]) {
      expect(csv).not.toMatch(new RegExp(`(^|,|")\\${start}(HYPERLINK|1\\+1|2-2|SUM)`, "m"));
    }
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.test"") entry 0"`);
    expect(csv).toContain(",'+1+1 entry 1");
    expect(csv).toContain(",'@SUM(A1) entry 3");
  });

  it("until and user:<email> narrow Palette's entries; the export itself is audited with what it read", async () => {
    const h = await start();
    seedEntries(h, 60);
    h.sim.control.clearRequests();
    const text = await exportAs(
      h,
      `audit user:editor@example.com since 7d until ${new Date(h.clock.now() - 3 * 3600_000).toISOString()}`,
      AUDITOR,
    );
    expect(text).toContain("sent to your DMs");
    const csv = [...h.bot.fake.uploads.values()][0]!.toString("utf8");
    const rows = csv.split("\r\n").filter((line) => line.startsWith("palette,"));
    // every third of the 60 is the editor's; 3 h at 250 s apart leaves out the newest 44
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.includes("editor@example.com"))).toBe(true);
    const expected = Array.from({ length: 60 }, (_, i) => i).filter(
      (i) => i % 3 === 0 && 60_000 + i * 250_000 >= 3 * 3600_000,
    ).length;
    expect(rows).toHaveLength(expected);
    const [row] = await h.bot.audit.recent(1);
    expect(row).toMatchObject({ userId: AUDITOR, action: "audit-export", outcome: "granted" });
    expect(JSON.parse(row!.detail!)).toMatchObject({ paletteEntries: expected });
  });

  it("under IDENTITY=strict the audit read carries the person's own key", async () => {
    const h = await start({ strict: true });
    seedEntries(h, 5);
    await linkWithOwnKey(h, AUDITOR, EDITOR);
    h.sim.control.clearRequests();
    const text = await exportAs(h, `audit project:${h.project} since 7d`, AUDITOR);
    expect(text).toContain("5 of Palette's");
    const calls = auditCalls(h);
    expect(calls.length).toBeGreaterThan(0);
    expect(new Set(calls.map((call) => call.caller))).toEqual(new Set(["editor@example.com"]));
    // an unlinked person on ALLOW_AUDIT is asked to log in, and Palette is asked nothing
    await h.bot.bot.edge.commandDeps.identity!.store.remove(AUDITOR);
    h.sim.control.clearRequests();
    const refused = await exportAs(h, `audit project:${h.project} since 7d`, AUDITOR);
    expect(refused).toContain("/palette login");
    expect(auditCalls(h)).toEqual([]);
  });
});
