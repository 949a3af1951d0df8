import { describe, expect, it } from "vitest";
import { type AccessPolicy, allowAll } from "../../../src/access/types.ts";
import { ManualClock } from "../../../src/clock.ts";
import { subscribeVerbs } from "../../../src/commands/subscribe.ts";
import { silentLogger } from "../../../src/log.ts";
import type { PaletteApi } from "../../../src/palette/api.ts";
import { dispatch } from "../../../src/registry/dispatch.ts";
import { AuditLog } from "../../../src/store/audit.ts";
import { OutboxStore } from "../../../src/store/outbox.ts";
import { SnapshotStore } from "../../../src/store/snapshots.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { parse } from "../../../src/verb-kit/parse.ts";
import type { CommandContext, MessageReply } from "../../../src/verb-kit/types.ts";
import { denyAll } from "../../support/fake-palette.ts";
import { asMessage, blocksText, rendered } from "../../support/reply-text.ts";
import { openMemoryDb } from "../../support/store.ts";

async function context(
  member?: boolean,
  channelId = "C1",
  projects: string[] = [],
  policy: AccessPolicy = allowAll,
  userId = "U1",
) {
  const db = await openMemoryDb();
  const clock = new ManualClock();
  const ctx: CommandContext = {
    palette: {} as PaletteApi,
    db,
    audit: new AuditLog(db, clock),
    policy,
    clock,
    logger: silentLogger,
    projects,
    consoleUrl: "https://console.example/",
    requester: { userId, channelId },
    channelProbe: member === undefined ? undefined : { isMember: async () => member },
  };
  return { ctx, store: new SubscriptionStore(db, clock) };
}

async function run(text: string, ctx: CommandContext): Promise<MessageReply> {
  const command = parse(text);
  const verb = subscribeVerbs.find((v) => v.name === command.verb)!;
  const reply = await verb.run(command, ctx);
  if (reply.kind !== "message") throw new Error("expected a message");
  return reply;
}
const all = (reply: MessageReply) => JSON.stringify(rendered(reply));

describe("/palette subscribe, unsubscribe, subscriptions", () => {
  it("stores a subscription for the requester's channel with its filters", async () => {
    const { ctx, store } = await context(true);
    const reply = await run("subscribe alerts project:p1 tag:env:prod", ctx);
    expect(reply.visibility).toBe("in_channel");
    expect(await store.forChannel("C1")).toMatchObject([
      { kind: "alerts", project: "p1", tag: "env:prod", createdBy: "U1" },
    ]);
    expect(all(await run("subscribe alerts project:p1 tag:env:prod", ctx))).toContain("already");
    expect(await store.forChannel("C1")).toHaveLength(1);
    await run("subscribe", ctx);
    expect((await store.forChannel("C1")).map((s) => s.kind)).toEqual(["alerts", "all"]);
    expect(all(await run("subscriptions", ctx))).toContain("#2");
  });

  it("says what the subscription covers as of the last poll, escaped", async () => {
    const { ctx } = await context(true);
    expect(all(await run("subscribe clusters tag:prod", ctx))).not.toContain("covers");
    const snap = (uid: string, name: string, health: string, tags: string[]) => ({
      uid,
      name,
      project: "p1",
      state: "Running",
      health,
      tags,
    });
    await new SnapshotStore(ctx.db).replace(
      "p1",
      new Map(),
      [
        snap("a", "web-prod", "Healthy", ["prod"]),
        snap("b", "<!channel>", "UnHealthy", ["prod"]),
        snap("c", "lab", "UnHealthy", ["dev"]),
        snap("d", "new-prod", "Unknown", ["prod"]),
      ],
      "2026-01-01T00:00:00.000Z",
    );
    const reply = all(await run("subscribe alerts tag:prod", ctx));
    expect(reply).toContain("It covers 3 clusters right now; not healthy: *&lt;!channel&gt;*.");
    expect(reply).not.toContain("lab");
  });

  it("says so when the bot is not in the channel, and stores nothing", async () => {
    const { ctx, store } = await context(false);
    const reply = await run("subscribe clusters", ctx);
    expect(all(reply)).toContain("/invite @palette");
    expect(await store.forChannel("C1")).toHaveLength(0);
  });

  it("answers bad input clearly", async () => {
    const { ctx } = await context(true, "C1", ["p1"]);
    expect(all(await run("subscribe everything", ctx))).toContain(
      "clusters, alerts, all, risks or edge",
    );
    expect(all(await run("subscribe tag:a tag:b", ctx))).toContain("One `tag:`");
    // a project outside PALETTE_PROJECTS is refused by dispatch, for subscribe as for every verb
    const outside = await dispatch("subscribe project:p9", ctx);
    expect(outside.kind === "message" && all(outside)).toContain("not one this bot watches");
    expect(await new SubscriptionStore(ctx.db, ctx.clock).forChannel("C1")).toEqual([]);
    expect(all(await run("unsubscribe abc", ctx))).toContain("no subscriptions");
  });

  it("offers `edge` (issue 39), narrowed like the others", async () => {
    const { ctx, store } = await context(true, "C1", ["p1"]);
    const reply = await run("subscribe edge project:p1 tag:site:store-0142", ctx);
    expect(all(reply)).toContain("edge hosts going dark");
    expect(await store.forChannel("C1")).toMatchObject([
      { kind: "edge", project: "p1", tag: "site:store-0142" },
    ]);
  });

  it("unsubscribes one by id, or all, only in this channel; resumes a paused one", async () => {
    const { ctx, store } = await context(true);
    await run("subscribe clusters", ctx);
    await run("subscribe alerts", ctx);
    const other = await store.add({ channel: "C9", kind: "all", createdBy: "U2" });
    expect(all(await run(`unsubscribe ${other.id}`, ctx))).toContain("no subscription");
    expect(all(await run("unsubscribe", ctx))).toContain("several");
    await run("unsubscribe 1", ctx);
    expect((await store.forChannel("C1")).map((s) => s.id)).toEqual([2]);
    await store.pauseChannel("C1", "Slack: not_in_channel");
    expect(all(await run("subscriptions", ctx))).toContain("paused");
    expect(all(await run("subscribe alerts", ctx))).toContain("Resumed");
    expect((await store.forChannel("C1"))[0]?.pausedReason).toBeUndefined();
    await run("unsubscribe all", ctx);
    expect(await store.forChannel("C1")).toHaveLength(0);
    expect(await store.forChannel("C9")).toHaveLength(1);
  });

  it("is reachable through the dispatcher", async () => {
    const { ctx, store } = await context(true);
    const reply = await dispatch("subscribe clusters tag:dev", ctx);
    expect(reply.kind).toBe("message");
    expect(await store.forChannel("C1")).toMatchObject([{ kind: "clusters", tag: "dev" }]);
  });

  it("tells the channel who removed what, and audits it (dispatcher path, real user IDs)", async () => {
    const { ctx, store } = await context(true, "C0123ABC", [], allowAll, "U0123ABC");
    await dispatch("subscribe clusters", ctx);
    await dispatch("subscribe alerts tag:env:prod", ctx);
    const reply = await dispatch("unsubscribe all", ctx);
    if (reply.kind !== "message") throw new Error("expected a message");
    expect(reply.visibility).toBe("in_channel");
    const text = all(reply);
    expect(text).toContain("<@U0123ABC> removed 2 subscriptions");
    expect(text).toContain("cluster state and health changes");
    expect(text).toContain("tagged `env:prod`");
    expect(await store.forChannel("C0123ABC")).toHaveLength(0);
    const trail = (await ctx.audit.recent()).map((r) => `${r.action}/${r.outcome}/${r.userId}`);
    expect(trail[0]).toBe("unsubscribe/removed/U0123ABC");
    expect(JSON.parse((await ctx.audit.recent())[0]!.detail!)).toEqual({ subscriptions: [1, 2] });
    // the list names who subscribed as a mention, and still fits Slack's rules
    await dispatch("subscribe", ctx);
    const list = asMessage(await dispatch("subscriptions", ctx));
    expect(JSON.stringify(list)).toContain("by <@U0123ABC>");
  });

  it("ALLOW_SUBSCRIBE: anyone else is refused, nothing changes, the refusal is audited", async () => {
    const { ctx, store } = await context(true, "C1", [], denyAll("add them to ALLOW_SUBSCRIBE"));
    const kept = await store.add({ channel: "C1", kind: "all", createdBy: "U2" });
    for (const text of ["subscribe alerts", `unsubscribe ${kept.id}`, "unsubscribe all"]) {
      const reply = await run(text, ctx);
      expect(all(reply), text).toContain("may not change this channel");
      expect(all(reply), text).toContain("ALLOW_SUBSCRIBE");
      expect(reply.visibility, text).toBe("ephemeral");
    }
    expect((await store.forChannel("C1")).map((sub) => sub.id)).toEqual([kept.id]);
    expect((await ctx.audit.recent()).map((r) => `${r.action}/${r.outcome}`)).toEqual([
      "unsubscribe/denied",
      "unsubscribe/denied",
      "subscribe/denied",
    ]);
    // reading the list needs no permission
    expect(all(await run("subscriptions", ctx))).toContain(`#${kept.id}`);
  });

  it("subscribing again in a paused channel resumes it and re-queues its held notifications in order", async () => {
    const { ctx, store } = await context(true);
    await run("subscribe clusters", ctx);
    await run("subscribe alerts", ctx);
    const outbox = new OutboxStore(ctx.db);
    const ids: number[] = [];
    for (const text of ["a", "b", "c"]) {
      ids.push(await outbox.add({ channel: "C1", kind: "post", payload: { text } }, "t"));
    }
    const elsewhere = await outbox.add(
      { channel: "C9", kind: "post", payload: { text: "x" } },
      "t",
    );
    // what the sender does on not_in_channel
    await store.pauseChannel("C1", "Slack: not_in_channel");
    await outbox.parkChannel("C1", "Slack: not_in_channel");
    await outbox.park(elsewhere, "Slack: not_in_channel");
    expect(await outbox.pendingCount("C1")).toBe(0);

    const reply = all(await run("subscribe clusters", ctx));
    expect(reply).toContain("Resumed");
    expect(reply).toContain("3 held notifications");
    expect((await store.forChannel("C1")).map((s) => s.pausedReason)).toEqual([
      undefined,
      undefined,
    ]);
    expect((await outbox.heads()).map((row) => row.id)).toEqual([ids[0]]);
    expect(await outbox.pendingCount("C1")).toBe(3);
    expect(await outbox.pendingCount("C9")).toBe(0);
  });

  it("lists what could not be delivered and why; `subscriptions retry` re-queues it in order and says how many", async () => {
    const { ctx } = await context(true);
    await run("subscribe", ctx);
    const outbox = new OutboxStore(ctx.db);
    const ids: number[] = [];
    for (const text of ["a", "b", "c", "d"]) {
      ids.push(await outbox.add({ channel: "C1", kind: "post", payload: { text } }, "t"));
    }
    await outbox.deadLetter(ids[0]!, "Slack: <!channel> invalid_blocks", "t");
    await outbox.deadLetter(ids[2]!, "Slack: timeout after 8 attempts", "t");
    await outbox.deadLetter(ids[3]!, "Slack: timeout after 8 attempts", "t");
    const listing = blocksText(rendered(await run("subscriptions", ctx)).blocks);
    expect(listing).toContain("3 notifications could not be delivered");
    expect(listing).toContain("2 × Slack: timeout after 8 attempts");
    expect(listing).toContain("&lt;!channel&gt;");
    expect(listing).not.toContain("<!channel>");
    expect(listing).toContain("/palette subscriptions retry");

    const retried = await run("subscriptions retry", ctx);
    expect(all(retried)).toContain("Re-queued 3 notifications");
    expect((await outbox.heads()).map((row) => row.id)).toEqual([ids[0]]);
    expect(await outbox.pendingCount("C1")).toBe(4);
    expect(all(await run("subscriptions", ctx))).not.toContain("could not be delivered");
    expect(all(await run("subscriptions retry", ctx))).toContain("Nothing to re-send");
    expect(all(await run("subscriptions again", ctx))).toContain("subscriptions [retry]");
  });

  it("lists undelivered notifications even when the channel has no subscriptions left", async () => {
    const { ctx } = await context(true);
    const outbox = new OutboxStore(ctx.db);
    await outbox.deadLetter(
      await outbox.add({ channel: "C1", kind: "post", payload: { text: "a" } }, "t"),
      "Slack: msg_too_long",
      "t",
    );
    const listing = all(await run("subscriptions", ctx));
    expect(listing).toContain("no subscriptions");
    expect(listing).toContain("1 notification could not be delivered");
  });

  it("help names the retry", async () => {
    const { ctx } = await context(true);
    const help = await dispatch("help subscriptions", ctx);
    expect(help.kind === "message" && all(help)).toContain("subscriptions retry");
  });
});
