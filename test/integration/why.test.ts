import { afterEach, describe, expect, it } from "vitest";
import { ChangeStore } from "../../src/store/changes.ts";
import { CHANGE_CALLBACK_ID } from "../../src/views/change.ts";
import {
  awsCluster,
  closeChangesHarnesses,
  confirmOk,
  type ChangesHarness as Harness,
  linkWithOwnKey,
  openConfirmation,
  startChangesHarness,
  strictIdentity,
} from "../support/changes-harness.ts";

/**
 * `/palette why` end to end: signed Slack requests into the bot, the real Palette client, the
 * simulator (its audit log and events) behind it, the fake Slack recording the answers. The
 * fake Slack's users.info says the reader is in America/New_York.
 */

const CHANNEL = "C111";
const ALICE = "W111";
/** the simulator's user who may edit */
const EDITOR = { uid: "editor", name: "Eddie Editor", email: "editor@example.com" };

afterEach(closeChangesHarnesses);

function start(options: { strict?: boolean } = {}): Promise<Harness> {
  // 12:00 UTC is 07:00 in New York (EST) on this day
  return startChangesHarness({
    simulator: {
      clusters: 12,
      seed: 27,
      lifecycle: { provisioningMs: 4_000, deletingMs: 4_000 },
    },
    access: { allowLaunch: [ALICE], allowChanges: { scale: [ALICE] } },
    bot: options.strict ? strictIdentity(7) : undefined,
  });
}

/** `/palette <text>` as Alice; the answer at the response_url, as JSON text */
async function ask(h: Harness, text: string): Promise<string> {
  const answer = await h.bot.command(text, { userId: ALICE, channelId: CHANNEL });
  const [reply] = await h.bot.responses(answer.responseId, 1);
  return JSON.stringify(reply!.body);
}

/** a scale through the bot: asked, confirmed, sent */
async function scaleThroughBot(h: Harness, name: string): Promise<void> {
  const view = await openConfirmation(h, `scale ${name} worker-pool 5`, { userId: ALICE });
  expect(view.callback_id).toBe(CHANGE_CALLBACK_ID);
  await confirmOk(h, { ...view, id: "VWHY1" }, { userId: ALICE });
  const store = new ChangeStore(h.bot.db, h.clock);
  for (let i = 0; i < 300; i++) {
    const [record] = await store.all();
    if (record && record.status !== "executing" && record.status !== "awaiting_approval") {
      expect(record.status).toBe("accepted");
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the scale was never sent");
}

const paletteCalls = (h: Harness, prefix: string) =>
  h.sim.control.requests().filter((request) => request.path.startsWith(prefix));

describe("/palette why", () => {
  it("after a scale through the bot and a profile update by another Palette user, lists both with their actors; the likely cause names the later one", async () => {
    const h = await start();
    const cluster = awsCluster(h, "why-me");
    await scaleThroughBot(h, "why-me");
    h.clock.advance(5 * 60_000);
    // another Palette user changes the profile in Palette's console (not through the bot)
    h.sim.control.addAudit({
      clusterUid: cluster.uid,
      actionType: "update",
      actionMsg: "Cluster profile 'edge-core' updated to 1.2.0 <!channel> *bold* & <script>",
      email: "editor@example.com",
    });
    h.clock.advance(5 * 60_000);
    h.sim.control.setHealth(cluster.uid, "UnHealthy", "kubelet stopped posting status on 2 nodes");
    h.clock.advance(60_000);
    h.sim.control.clearRequests();

    const text = await ask(h, "why why-me");
    // the likely cause: the later write, by its actor, before the health loss
    const cause = /Likely cause:[^"]*/.exec(text)?.[0] ?? "";
    expect(cause).toContain("editor@example.com");
    expect(cause).toContain("Cluster profile 'edge-core' updated");
    expect(cause).toContain("5 min before");
    expect(cause).toContain("ClusterUnhealthy");
    // both writes listed with their actors: Palette's audit of the bot's PUT (its service account)
    // and the bot's own record (Alice asked); the other user's update; the warning event
    expect(text).toContain("bot@example.com");
    expect(text).toContain("Machine pool 'worker-pool' of cluster 'why-me' updated: size 5");
    expect(text).toContain("<@W111>");
    expect(text).toContain("scale worker-pool 3 → 5");
    expect(text).toContain("kubelet stopped posting status on 2 nodes");
    expect(text).toContain("MachinePoolResizing");
    // newest first, below the likely cause: the warning, then the update, then the scale
    const story = text.slice(text.indexOf('"type":"divider"'));
    expect(story.indexOf("kubelet stopped")).toBeGreaterThan(0);
    expect(story.indexOf("kubelet stopped")).toBeLessThan(story.indexOf("edge-core' updated"));
    expect(story.indexOf("edge-core' updated")).toBeLessThan(
      story.indexOf("scale worker-pool 3 → 5"),
    );
    // every name and message escaped
    expect(text).toContain("&lt;!channel&gt;");
    expect(text).toContain("&lt;script&gt;");
    expect(text).not.toContain("<!channel>");
    expect(text).not.toContain("<script>");
    // the reader's time zone: 12:10 UTC is 07:10 in New York
    expect(text).toContain("America/New_York");
    expect(text).toContain("2026-11-25 07:10");
    // at most: the name search, one audit page and one event page
    expect(paletteCalls(h, "/v1/audits")).toHaveLength(1);
    expect(paletteCalls(h, "/v1/events/components/spectrocluster/")).toHaveLength(1);
    expect(paletteCalls(h, "/v1/audits")[0]!.status).toBe(200);
  });

  it("a health loss with no write before it names the warning event and says no change is recorded", async () => {
    const h = await start();
    const cluster = awsCluster(h, "calm-one");
    h.clock.advance(2 * 3600_000);
    h.sim.control.setHealth(cluster.uid, "UnHealthy", "etcd lost quorum");
    h.clock.advance(60_000);
    const text = await ask(h, "timeline calm-one since 7d");
    const cause = /Likely cause:[^"]*/.exec(text)?.[0] ?? "";
    expect(cause).toContain("no change recorded before it");
    expect(cause).toContain("ClusterUnhealthy");
    expect(cause).toContain("etcd lost quorum");
    expect(text).toContain("Since 7d");
  });

  it("the cluster card's Why? button answers the same, privately", async () => {
    const h = await start();
    const cluster = awsCluster(h, "button-one");
    h.clock.advance(3600_000);
    h.sim.control.setHealth(cluster.uid, "UnHealthy", "disk pressure on node-1");
    const card = await ask(h, "cluster button-one");
    expect(card).toContain(`"value":"why ${cluster.uid} project:${h.project}"`);
    const click = await h.bot.click("palette_run:why", `why ${cluster.uid} project:${h.project}`, {
      userId: ALICE,
    });
    expect(click.status).toBe(200);
    const [reply] = await h.bot.responses(click.responseId, 1);
    const text = JSON.stringify(reply!.body);
    expect(text).toContain("Why: button-one");
    expect(text).toContain("disk pressure on node-1");
    expect(text).toContain('"response_type":"ephemeral"');
  });

  it("Palette's audit failing (500) still answers with the events and the bot's record, and says what could not be read", async () => {
    const h = await start();
    const cluster = awsCluster(h, "half-told");
    h.clock.advance(3600_000);
    h.sim.control.setHealth(cluster.uid, "UnHealthy", "apiserver unreachable");
    h.sim.control.addFault({ pathPrefix: "/v1/audits", kind: "status", status: 500 });
    const text = await ask(h, "why half-told");
    expect(text).toContain("apiserver unreachable");
    expect(text).toContain("Palette's audit could not be read");
    // with Palette's audit unread, the cause is what the events show, never a guess
    expect(text).toContain("no change recorded before it");
    expect(text).toContain("a change recorded there would not show here");
  });

  it("under IDENTITY=strict, why reads Palette with the person's own key; an unlinked person is asked to log in first", async () => {
    const h = await start({ strict: true });
    const cluster = awsCluster(h, "strict-one");
    h.sim.control.addAudit({
      clusterUid: cluster.uid,
      actionType: "update",
      actionMsg: "strict entry",
      email: "viewer@example.com",
    });
    h.sim.control.clearRequests();
    expect(await ask(h, "why strict-one")).toContain("/palette login");
    expect(h.sim.control.requests()).toEqual([]);
    await linkWithOwnKey(h, ALICE, EDITOR);
    const text = await ask(h, "why strict-one");
    expect(text).toContain("strict entry");
    const reads = paletteCalls(h, "/v1/");
    expect(reads.length).toBeGreaterThan(2);
    expect(new Set(reads.map((request) => request.caller))).toEqual(
      new Set(["editor@example.com"]),
    );
  });

  it("a long story pages: More runs the next page of the same range", async () => {
    const h = await start();
    const cluster = awsCluster(h, "long-one");
    for (let i = 0; i < 30; i++) {
      h.clock.advance(60_000);
      h.sim.control.addAudit({
        clusterUid: cluster.uid,
        actionType: "update",
        actionMsg: `tweak number ${i}`,
        email: "editor@example.com",
      });
    }
    const first = await ask(h, "why long-one");
    expect(first).toContain("tweak number 29");
    expect(first).toContain("page 1 of 2");
    const more = /"value":"(why [^"]*--page=2[^"]*)"/.exec(first)?.[1];
    expect(more).toBeDefined();
    // later entries do not shift the page: the range ends where the first page's did
    h.clock.advance(60_000);
    h.sim.control.addAudit({
      clusterUid: cluster.uid,
      actionType: "update",
      actionMsg: "tweak after the first page",
      email: "editor@example.com",
    });
    const click = await h.bot.click("palette_run:why-more", more!, { userId: ALICE });
    const [reply] = await h.bot.responses(click.responseId, 1);
    const second = JSON.stringify(reply!.body);
    expect(second).toContain("page 2 of 2");
    expect(second).toContain("tweak number 0");
    expect(second).not.toContain("tweak number 29");
    expect(second).not.toContain("tweak after the first page");
  });

  it("a cluster in no watched project answers nothing of it, and Palette's audit and events are not read", async () => {
    const h = await start();
    const other = h.sim.control.projects()[1]!;
    const outside = awsCluster(h, "not-ours", other);
    h.sim.control.addAudit({
      clusterUid: outside.uid,
      actionType: "update",
      actionMsg: "secret-rotation-xyz",
      email: "editor@example.com",
    });
    h.sim.control.setHealth(outside.uid, "UnHealthy", "hidden-reason-abc");
    h.sim.control.clearRequests();
    for (const ref of ["not-ours", outside.uid]) {
      const text = await ask(h, `why ${ref}`);
      expect(text).not.toContain("secret-rotation-xyz");
      expect(text).not.toContain("hidden-reason-abc");
      expect(text).not.toContain("Likely cause");
    }
    expect(paletteCalls(h, "/v1/audits")).toEqual([]);
    expect(paletteCalls(h, "/v1/events/")).toEqual([]);
  });
});
