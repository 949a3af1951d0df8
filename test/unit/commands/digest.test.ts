import { describe, expect, it } from "vitest";
import { type AccessPolicy, allowAll } from "../../../src/access/types.ts";
import { ManualClock } from "../../../src/clock.ts";
import { parseDigestArgs } from "../../../src/commands/digest.ts";
import { silentLogger } from "../../../src/log.ts";
import type { PaletteApi } from "../../../src/palette/api.ts";
import { dispatch } from "../../../src/registry/dispatch.ts";
import { AuditLog } from "../../../src/store/audit.ts";
import { DigestStore } from "../../../src/store/digests.ts";
import { HoldStore } from "../../../src/store/holds.ts";
import { NotifyEventLog } from "../../../src/store/notify-events.ts";
import { SnapshotStore } from "../../../src/store/snapshots.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import type { CommandContext } from "../../../src/verb-kit/types.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import { asMessage, blocksText } from "../../support/reply-text.ts";
import { openMemoryDb } from "../../support/store.ts";

const NOW = Date.parse("2026-03-10T10:00:00.000Z");

const onlyU1: AccessPolicy = {
  allows: async (userId, permission) => permission !== "subscribe" || userId === "U111",
  grantHint: () => "Ask an admin to add your user ID to `ALLOW_SUBSCRIBE`.",
};

async function context(policy: AccessPolicy = allowAll, userId = "U111") {
  const db = await openMemoryDb();
  const clock = new ManualClock(NOW);
  let changes = 0;
  const ctx: CommandContext = {
    palette: {} as PaletteApi,
    db,
    audit: new AuditLog(db, clock),
    policy,
    clock,
    logger: silentLogger,
    projects: [],
    consoleUrl: "https://console.example/",
    requester: { userId, channelId: "C1" },
    onDigestChange: () => {
      changes += 1;
    },
  };
  return { ctx, db, clock, store: new DigestStore(db), changes: () => changes };
}

async function run(text: string, ctx: CommandContext) {
  return asMessage(await dispatch(text, ctx));
}

describe("parseDigestArgs", () => {
  it("reads daily, weekly, off, now and nothing", async () => {
    expect(parseDigestArgs([])).toEqual({ kind: "show" });
    expect(parseDigestArgs(["now"])).toEqual({ kind: "now" });
    expect(parseDigestArgs(["OFF"])).toEqual({ kind: "off" });
    expect(parseDigestArgs(["daily", "09:00", "Europe/Berlin"])).toEqual({
      kind: "set",
      cadence: "daily",
      hour: 9,
      minute: 0,
      timeZone: "Europe/Berlin",
      zoneGiven: true,
    });
    expect(parseDigestArgs(["daily", "7:05"])).toEqual({
      kind: "set",
      cadence: "daily",
      hour: 7,
      minute: 5,
      timeZone: "UTC",
      zoneGiven: false,
    });
    expect(parseDigestArgs(["weekly", "Monday", "17:30", "america/new_york"])).toEqual({
      kind: "set",
      cadence: "weekly",
      weekday: 1,
      hour: 17,
      minute: 30,
      timeZone: "America/New_York",
      zoneGiven: true,
    });
    expect(parseDigestArgs(["weekly", "sun", "00:00"])).toMatchObject({ weekday: 0 });
  });

  it("says what is wrong with a bad schedule", async () => {
    const problem = (args: string[]) => {
      const parsed = parseDigestArgs(args);
      return parsed.kind === "bad" ? parsed.problem : `parsed as ${parsed.kind}`;
    };
    expect(problem(["daily"])).toMatch(/time/i);
    expect(problem(["daily", "25:00"])).toMatch(/HH:MM/);
    expect(problem(["daily", "9am"])).toMatch(/HH:MM/);
    expect(problem(["daily", "09:00", "Mars/Olympus"])).toMatch(/time zone/i);
    expect(problem(["weekly", "09:00"])).toMatch(/weekday/i);
    expect(problem(["weekly", "someday", "09:00"])).toMatch(/weekday/i);
    expect(problem(["daily", "09:00", "UTC", "extra"])).toMatch(/too many/i);
    expect(problem(["hourly"])).toMatch(/daily, weekly, off or now/);
    expect(problem(["now", "please"])).toMatch(/too many/i);
  });
});

describe("/palette digest", () => {
  it("sets a daily digest in the channel, says when the next one comes, audits and tells the scheduler", async () => {
    const { ctx, store, db, changes } = await context();
    const reply = await run("digest daily 09:00 Europe/Berlin", ctx);
    expect(reply.visibility).toBe("in_channel");
    const text = blocksText(reply.blocks);
    expect(text).toContain("daily at 09:00 (Europe/Berlin)");
    // 10:00 UTC is 11:00 in Berlin: today's 09:00 is past, the next is tomorrow's
    expect(text).toContain("Next: 2026-03-11 09:00");
    expect(await store.get("C1")).toMatchObject({
      channel: "C1",
      cadence: "daily",
      hour: 9,
      minute: 0,
      timeZone: "Europe/Berlin",
      setBy: "U111",
      setAt: new Date(NOW).toISOString(),
    });
    expect(changes()).toBe(1);
    const audit = (await new AuditLog(db, new ManualClock(NOW)).recent(1))[0];
    expect(audit).toMatchObject({
      userId: "U111",
      action: "digest-set",
      target: "C1",
      outcome: "created",
    });
    expect(JSON.parse(audit!.detail!)).toMatchObject({
      cadence: "daily",
      time: "09:00",
      timeZone: "Europe/Berlin",
    });
  });

  it("says so when no time zone was given: UTC", async () => {
    const { ctx, store } = await context();
    const text = blocksText((await run("digest weekly mon 08:30", ctx)).blocks);
    expect(text).toContain("weekly on Monday at 08:30 (UTC)");
    expect(text).toMatch(/no time zone.*UTC/i);
    expect(await store.get("C1")).toMatchObject({ cadence: "weekly", weekday: 1, timeZone: "UTC" });
  });

  it("answers bad input with usage, never a crash, and stores nothing", async () => {
    const { ctx, store } = await context();
    for (const text of [
      "digest daily 25:61",
      "digest weekly funday 09:00",
      "digest daily 09:00 Not/AZone",
      "digest daily 09:00 project:p1",
      "digest daily 09:00 --share",
      "digest sometimes",
    ]) {
      const reply = await run(text, ctx);
      expect(reply.view.screen, text).toBe("usage");
      expect(blocksText(reply.blocks)).toContain("digest [daily HH:MM");
    }
    expect(await store.get("C1")).toBeUndefined();
  });

  it("refuses a user outside ALLOW_SUBSCRIBE to set or turn off the digest, audited", async () => {
    const { ctx, store, db, changes } = await context(onlyU1, "U222");
    const reply = await run("digest daily 09:00", ctx);
    expect(reply.view.screen).toBe("error");
    expect(reply.visibility).toBe("ephemeral");
    expect(blocksText(reply.blocks)).toContain("You may not change this channel's digest");
    expect(blocksText(reply.blocks)).toContain("ALLOW_SUBSCRIBE");
    expect(await store.get("C1")).toBeUndefined();
    await store.set({
      channel: "C1",
      cadence: "daily",
      hour: 9,
      minute: 0,
      timeZone: "UTC",
      setBy: "U111",
      setAt: new Date(NOW).toISOString(),
    });
    expect((await run("digest off", ctx)).view.screen).toBe("error");
    expect(await store.get("C1")).toBeDefined();
    expect(changes()).toBe(0);
    const records = await new AuditLog(db, new ManualClock(NOW)).recent(2);
    expect(records.map((r) => `${r.action}:${r.outcome}:${r.userId}`)).toEqual([
      "digest-off:denied:U222",
      "digest-set:denied:U222",
    ]);
    // showing and previewing stay open to everyone
    expect((await run("digest", ctx)).view.screen).not.toBe("error");
    expect((await run("digest now", ctx)).view.screen).not.toBe("error");
  });

  it("turns the digest off, in the channel, naming who did it", async () => {
    const { ctx, store, changes } = await context();
    expect(blocksText((await run("digest off", ctx)).blocks)).toContain("has no digest");
    await run("digest daily 09:00", ctx);
    const reply = await run("digest off", ctx);
    expect(reply.visibility).toBe("in_channel");
    expect(blocksText(reply.blocks)).toContain("<@U111> turned off this channel's daily digest");
    expect(await store.get("C1")).toBeUndefined();
    expect(changes()).toBe(2);
  });

  it("alone, shows the channel's setting and next run", async () => {
    const { ctx } = await context();
    expect(blocksText((await run("digest", ctx)).blocks)).toContain("has no digest");
    await run("digest weekly fri 16:00 Asia/Tokyo", ctx);
    const reply = await run("digest", ctx);
    expect(reply.visibility).toBe("ephemeral");
    const text = blocksText(reply.blocks);
    expect(text).toContain("weekly on Friday at 16:00 (Asia/Tokyo)");
    // 2026-03-10 is a Tuesday
    expect(text).toContain("Next: 2026-03-13 16:00");
    expect(text).toContain("not sent yet");
  });

  it("`digest now` previews privately, from the store, posting nothing", async () => {
    const { ctx, db } = await context();
    expect(blocksText((await run("digest now", ctx)).blocks)).toContain("no subscriptions");
    await new SubscriptionStore(db, new ManualClock(NOW)).add({
      channel: "C1",
      kind: "all",
      createdBy: "U111",
    });
    await new SnapshotStore(db).replace(
      "p1",
      new Map(),
      [
        {
          uid: "a",
          name: "<!channel>",
          project: "p1",
          state: "Running",
          health: "UnHealthy",
          tags: [],
        },
        { uid: "b", name: "web", project: "p1", state: "Running", health: "Healthy", tags: [] },
      ],
      "2026-03-01T00:00:00.000Z",
    );
    const log = new NotifyEventLog(db);
    await log.applyUnhealthy({
      start: [{ clusterUid: "a", since: "2026-03-08T00:00:00.000Z", exact: true }],
      end: [],
    });
    await log.append([
      {
        at: "2026-03-10T02:00:00.000Z",
        clusterUid: "b",
        name: "web",
        project: "p1",
        tags: [],
        kind: "new",
      },
    ]);
    const reply = await run("digest now", ctx);
    expect(reply.visibility).toBe("ephemeral");
    expect(reply.view.screen).toBe("channelDigest");
    expect(checkSlackLimits(reply.blocks)).toEqual([]);
    const text = blocksText(reply.blocks);
    expect(text).toContain("Digest preview: 2 clusters");
    expect(text).toContain("Unhealthy for more than 24 h (1)");
    expect(text).toContain("&lt;!channel&gt;");
    expect(text).not.toContain("<!channel>");
    expect(text).toContain("Launched (1)");
    const outbox = (await db.get("SELECT COUNT(*) AS n FROM notify_outbox")) as { n: number };
    expect(outbox.n).toBe(0);
  });

  it("lists the channel's running mutes, not its snoozes nor other channels' mutes", async () => {
    const { ctx, db } = await context();
    await new SubscriptionStore(db, new ManualClock(NOW)).add({
      channel: "C1",
      kind: "all",
      createdBy: "U111",
    });
    const holds = new HoldStore(db);
    const hold = {
      clusterUid: "a",
      clusterName: "billing-prod",
      projectUid: "p1",
      userId: "U222",
      startedAt: NOW - 3600_000,
      untilMs: NOW + 86_400_000,
    };
    await holds.put({ ...hold, channel: "C1", kind: "mute", reason: "kernel <!here> upgrades" });
    await holds.put({
      ...hold,
      channel: "C1",
      clusterUid: "b",
      clusterName: "web",
      kind: "snooze",
    });
    await holds.put({
      ...hold,
      channel: "C2",
      clusterUid: "c",
      clusterName: "other",
      kind: "mute",
    });
    await holds.put({
      ...hold,
      channel: "C1",
      clusterUid: "d",
      clusterName: "old",
      kind: "mute",
      untilMs: NOW - 1,
    });
    const reply = await run("digest now", ctx);
    expect(checkSlackLimits(reply.blocks)).toEqual([]);
    const text = blocksText(reply.blocks);
    expect(text).toContain("billing-prod");
    expect(text).toContain("kernel &lt;!here&gt; upgrades");
    expect(text).not.toContain("web");
    expect(text).not.toContain("other");
    expect(text).not.toContain("old");
  });
});
