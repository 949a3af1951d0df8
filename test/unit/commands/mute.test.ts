import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { parseMuteArgs } from "../../../src/commands/mute.ts";
import type { CardPayload, HoldChange } from "../../../src/model/notification.ts";
import { dispatch } from "../../../src/registry/dispatch.ts";
import { HoldStore } from "../../../src/store/holds.ts";
import { OutboxStore } from "../../../src/store/outbox.ts";
import type { CommandContext } from "../../../src/verb-kit/types.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import { denyAll, PROJECT, testContext } from "../../support/fake-palette.ts";
import { asMessage, blocksText } from "../../support/reply-text.ts";

const NOW = Date.UTC(2026, 0, 1, 12);
const DAY = 86_400_000;

async function setup(options: { deny?: boolean } = {}) {
  const clock = new ManualClock(NOW);
  const ctx: CommandContext = await testContext({
    clock,
    projects: [PROJECT],
    policy: options.deny ? denyAll("ask an admin to add you to ALLOW_SUBSCRIBE") : undefined,
  });
  const changes: HoldChange[] = [];
  ctx.onHoldChange = async (change) => {
    changes.push(change);
  };
  const run = async (text: string) => {
    const reply = asMessage(await dispatch(text, ctx));
    expect(checkSlackLimits(reply.blocks)).toEqual([]);
    return { ...reply, shown: blocksText(reply.blocks) };
  };
  return { ctx, clock, run, changes, holds: new HoldStore(ctx.db) };
}

describe("parsing /palette mute", () => {
  it.each([
    [["web"], { ref: "web", length: { days: 1 } }],
    [["web", "7d"], { ref: "web", length: { days: 7 } }],
    [
      ["web", "1d", "maintenance", "window"],
      { ref: "web", length: { days: 1 }, reason: "maintenance window" },
    ],
    [
      ["web", "until", "2026-01-10", "db", "move"],
      { ref: "web", length: { until: "2026-01-10" }, reason: "db move" },
    ],
    [
      ["web", "noisy", "during", "tests"],
      { ref: "web", length: { days: 1 }, reason: "noisy during tests" },
    ],
  ])("%j", (args, expected) => {
    expect(parseMuteArgs(args)).toEqual({ ok: true, ...expected });
  });

  it.each([
    [[], /Name the cluster/],
    [["web", "until"], /`until` wants a date/],
    [["web", "until", "next-week"], /`until` wants a date/],
    [["web", "2h"], /1d, 7d/],
    [["web", "0d"], /1d, 7d/],
    [["web", "1d", "x".repeat(201)], /at most 200/],
  ])("refuses %j", (args, problem) => {
    const parsed = parseMuteArgs(args);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problem).toMatch(problem);
  });
});

describe("/palette mute, unmute, mutes", () => {
  it("mutes a cluster found by name in this channel, says so in the channel, and audits it", async () => {
    const s = await setup();
    const reply = await s.run('mute web-prod 7d "maintenance <!channel>"');
    expect(reply.visibility).toBe("in_channel");
    expect(reply.shown).toContain("web-prod");
    expect(reply.shown).toContain("maintenance &lt;!channel&gt;");
    expect(reply.shown).not.toContain("<!channel>");
    expect(await s.holds.list("C123")).toEqual([
      {
        channel: "C123",
        clusterUid: "c0000000000000000000001a",
        kind: "mute",
        clusterName: "web-prod",
        projectUid: PROJECT,
        userId: "U123",
        reason: "maintenance <!channel>",
        startedAt: NOW,
        untilMs: NOW + 7 * DAY,
      },
    ]);
    expect(s.changes).toEqual([
      { channel: "C123", clusterUid: "c0000000000000000000001a", queued: false },
    ]);
    expect((await s.ctx.audit.recent(1))[0]).toMatchObject({
      userId: "U123",
      action: "mute",
      outcome: "created",
      target: "C123 web-prod",
    });
  });

  it("mutes until a date, and answers a date in the past with the usage", async () => {
    const s = await setup();
    await s.run("mute web-prod until 2026-01-05");
    expect((await s.holds.get("C123", "c0000000000000000000001a", "mute"))?.untilMs).toBe(
      Date.UTC(2026, 0, 5),
    );
    const past = await s.run("mute web-prod until 2025-12-31");
    expect(past.shown).toMatch(/after today/);
    expect(past.shown).toContain("mute &lt;cluster&gt;");
  });

  it("refuses a user ALLOW_SUBSCRIBE does not grant, with the hint, and audits the refusal", async () => {
    const s = await setup({ deny: true });
    const reply = await s.run("mute web-prod");
    expect(reply.shown).toContain("may not mute");
    expect(reply.shown).toContain("ALLOW_SUBSCRIBE");
    expect(await s.holds.list()).toEqual([]);
    expect((await s.ctx.audit.recent(1))[0]).toMatchObject({ action: "mute", outcome: "denied" });
    const unmute = await s.run("unmute web-prod");
    expect(unmute.shown).toContain("may not unmute");
  });

  it("answers an unknown cluster and a bad option clearly", async () => {
    const s = await setup();
    expect((await s.run("mute nope")).shown).toContain("No cluster named");
    expect((await s.run("mute")).shown).toContain("Name the cluster");
    expect((await s.run("mute web-prod --force")).shown).toContain("no option --force");
  });

  it("unmutes: the kept news becomes one queued card row, and the edge is told to send it", async () => {
    const s = await setup();
    await s.run("mute web-prod 1d maintenance");
    const kept: CardPayload = {
      cluster: {
        uid: "c0000000000000000000001a",
        name: "web-prod",
        project: PROJECT,
        state: "Upgrading",
        health: "Healthy",
        tags: [],
      },
      previous: { state: "Running", health: "Healthy" },
      kinds: ["state"],
      lines: ["State Running → Upgrading"],
      worse: false,
      alerts: [],
      at: new Date(NOW).toISOString(),
    };
    await s.holds.keep("C123", "c0000000000000000000001a", kept, kept.at);
    s.clock.advance(60_000);
    const reply = await s.run("unmute web-prod");
    expect(reply.visibility).toBe("in_channel");
    expect(reply.shown).toContain("1 change");
    expect(await s.holds.list()).toEqual([]);
    const rows = await new OutboxStore(s.ctx.db).heads();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.kind).toBe("card");
    expect((rows[0]!.payload as CardPayload).held).toMatchObject({
      ended: [{ kind: "mute", userId: "U123", reason: "maintenance" }],
      endedBy: "U123",
      changes: ["Running → Upgrading"],
    });
    expect(s.changes.at(-1)).toEqual({
      channel: "C123",
      clusterUid: "c0000000000000000000001a",
      queued: true,
    });
    expect((await s.ctx.audit.recent(1))[0]).toMatchObject({
      action: "unmute",
      outcome: "removed",
    });
    expect((await s.run("unmute web-prod")).shown).toContain("not muted");
  });

  it("lists the channel's mutes and snoozes with who, why and until", async () => {
    const s = await setup();
    expect((await s.run("mutes")).shown).toContain("No mutes or snoozes");
    await s.run('mute web-prod 7d "<b>db</b> move"');
    await s.holds.put({
      channel: "C123",
      clusterUid: "c0000000000000000000003c",
      kind: "snooze",
      clusterName: "dup",
      projectUid: PROJECT,
      userId: "U456",
      startedAt: NOW,
      untilMs: NOW + 3_600_000,
    });
    await s.holds.put({
      channel: "C999",
      clusterUid: "c0000000000000000000005e",
      kind: "mute",
      clusterName: "vc-1",
      projectUid: PROJECT,
      userId: "U456",
      startedAt: NOW,
      untilMs: NOW + DAY,
    });
    const list = await s.run("mutes");
    expect(list.shown).toContain("dup");
    expect(list.shown).toContain("<@U456>");
    expect(list.shown).toContain("web-prod");
    expect(list.shown).toContain("<@U123>");
    expect(list.shown).toContain("&lt;b&gt;db&lt;/b&gt; move");
    expect(list.shown).not.toContain("vc-1");
    // soonest end first
    expect(list.shown.indexOf("dup")).toBeLessThan(list.shown.indexOf("web-prod"));
  });
});
