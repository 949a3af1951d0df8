import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import type { WireRequest } from "../../src/palette/http.ts";
import { type ChangeRecord, ChangeStore } from "../../src/store/changes.ts";
import { APPROVE_ACTION_ID } from "../../src/views/change.ts";
import {
  awsCluster,
  CHANNEL,
  type ChangesHarness,
  changeAuditRows,
  closeChangesHarnesses,
  type OpenedView,
  openConfirmation,
  startChangesHarness,
  submitConfirmation,
  texts,
  waitForCall,
} from "../support/changes-harness.ts";

/**
 * Approvals that hold: what the second person approves is what runs (Palette read again and
 * compared as a whole, the requester's ALLOW_* checked again), and the request always reaches
 * someone. Signed Slack requests into the bot, the real Palette client, the simulator behind it,
 * the fake Slack recording what the bot sent.
 */

const ALICE = "W111";
const BOB = "W222";
/** ALLOW_SCALE names this group; Alice is in it until a test takes her out */
const SCALERS = "S0SCALERS";
const TTL_MS = 30 * 60_000;

interface Harness extends ChangesHarness {
  /** Slack's answer to usergroups.users.list for SCALERS */
  scalers: Set<string>;
}

afterEach(closeChangesHarnesses);

async function start(approvals: { verbs: string[]; channel?: string }): Promise<Harness> {
  const scalers = new Set([ALICE]);
  const harness = await startChangesHarness({
    clock: new ManualClock(Date.UTC(2026, 10, 26, 9)),
    simulator: { clusters: 4, seed: 25 },
    // every write the bot sent Palette
    isWrite: (request: WireRequest) =>
      request.method !== "GET" && !request.path.includes("/search"),
    access: {
      allowChanges: {
        scale: [SCALERS, BOB],
        delete: [ALICE, BOB],
        maintenance: [ALICE, BOB],
        backup: [ALICE, BOB],
      },
    },
    groupMembers: (usergroup) => (usergroup === SCALERS ? [...scalers] : []),
    approvals: { ...approvals, ttlMs: TTL_MS },
  });
  return Object.assign(harness, { scalers });
}

/** `/palette <text>` → the confirmation Slack was asked to open */
const ask = (h: Harness, text: string, userId = ALICE) =>
  openConfirmation(h, text, { userId, viewPrefix: "VA" });

const confirm = (h: Harness, view: OpenedView) => submitConfirmation(h, view, { userId: ALICE });

/** the request recorded for a cluster, once its card's place is stored */
async function requestOf(h: Harness, clusterName: string): Promise<ChangeRecord> {
  const store = new ChangeStore(h.bot.db, h.clock);
  const deadline = Date.now() + 3_000;
  for (;;) {
    const record = (await store.all()).find((r) => r.plan.cluster.name === clusterName);
    if (record?.requestTs) return record;
    if (Date.now() > deadline) throw new Error(`no request card for ${clusterName}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** the change's row once it has left awaiting_approval and executing */
async function settledRecord(h: Harness, id: number): Promise<ChangeRecord> {
  const store = new ChangeStore(h.bot.db, h.clock);
  const deadline = Date.now() + 3_000;
  for (;;) {
    const record = await store.get(id);
    if (record && record.status !== "awaiting_approval" && record.status !== "executing") {
      return record;
    }
    if (Date.now() > deadline) throw new Error(`change ${id} did not settle: ${record?.status}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** what the bot said to one person, privately in the channel or in their DM */
function toPerson(h: Harness, userId: string): string[] {
  return [
    ...texts(h.bot.fake.callsTo("chat.postEphemeral").filter((c) => c.body.user === userId)),
    ...texts(h.bot.fake.callsTo("chat.postMessage").filter((c) => c.body.channel === userId)),
  ];
}

async function waitForPerson(h: Harness, userId: string, match: string): Promise<string> {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const found = toPerson(h, userId).find((text) => text.includes(match));
    if (found) return found;
    if (Date.now() > deadline) {
      throw new Error(`nothing to ${userId} with ${match}; saw ${toPerson(h, userId).join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("approve what runs", () => {
  it("a repave whose reasons changed between request and approval is refused: nothing sent, the card and the requester say what changed", async () => {
    const h = await start({ verbs: ["repave"] });
    const cluster = awsCluster(h, "repave-held");
    h.sim.control.setRepavePending(cluster.uid, [
      "kubernetes 1.29.4 → 1.29.6 changes the node image",
    ]);
    const view = await ask(h, "repave approve repave-held");
    expect(JSON.stringify(view.blocks)).toContain("1.29.6 changes the node image");
    await confirm(h, view);
    const request = await requestOf(h, "repave-held");

    // Palette now holds a different repave: a minor version, not the patch that was asked about
    h.sim.control.setRepavePending(cluster.uid, [
      "kubernetes 1.29.4 → 1.30.0 changes the node image",
    ]);
    await h.bot.click(APPROVE_ACTION_ID, String(request.id), { userId: BOB });

    const record = await settledRecord(h, request.id);
    expect(record.status).toBe("failed");
    expect(h.writes).toEqual([]);
    const card = await waitForCall(h, "chat.update", "did not run");
    expect(card).toContain(request.requestTs!);
    expect(card).toContain("reasons for the repave");
    expect(card).toContain("1.30.0 changes the node image");
    const approver = await waitForPerson(h, BOB, "Not sent");
    expect(approver).toContain("1.30.0");
    const requester = await waitForPerson(h, ALICE, "not sent");
    expect(requester).toContain("<@W222>");
    expect(requester).toContain("reasons for the repave");
  });

  it("a backup whose location moved between request and approval is refused: nothing sent, the card names both", async () => {
    const h = await start({ verbs: ["backup"] });
    const cluster = awsCluster(h, "keep-safe");
    h.sim.control.setBackupLocation(cluster.uid, "s3-backups");
    const view = await ask(h, "backup keep-safe");
    expect(JSON.stringify(view.blocks)).toContain("s3-backups");
    await confirm(h, view);
    const request = await requestOf(h, "keep-safe");

    // the cluster's backup policy now names another bucket
    h.sim.control.setBackupLocation(cluster.uid, "s3-archive");
    await h.bot.click(APPROVE_ACTION_ID, String(request.id), { userId: BOB });

    expect((await settledRecord(h, request.id)).status).toBe("failed");
    expect(h.writes).toEqual([]);
    const card = await waitForCall(h, "chat.update", "did not run");
    expect(card).toContain("backup location");
    expect(card).toContain("s3-archive");
    expect(card).toContain("s3-backups");
    await waitForPerson(h, ALICE, "not sent");
  });

  it("a requester taken out of ALLOW_SCALE before the approval: refused, nothing sent, both told", async () => {
    const h = await start({ verbs: ["scale"] });
    awsCluster(h, "grow-me");
    const view = await ask(h, "scale grow-me worker-pool 5");
    await confirm(h, view);
    const request = await requestOf(h, "grow-me");

    // an admin takes Alice out of the group ALLOW_SCALE names; the policy's cache (5 min) runs out
    h.scalers.delete(ALICE);
    h.clock.advance(6 * 60_000);
    await h.bot.click(APPROVE_ACTION_ID, String(request.id), { userId: BOB });

    const record = await settledRecord(h, request.id);
    expect(record.status).toBe("failed");
    expect(h.writes).toEqual([]);
    const card = await waitForCall(h, "chat.update", "did not run");
    expect(card).toContain("no longer allowed to scale");
    expect(card).toContain("ALLOW_SCALE");
    const approver = await waitForPerson(h, BOB, "no longer allowed");
    expect(approver).toContain("<@W111>");
    const requester = await waitForPerson(h, ALICE, "you are no longer allowed to scale");
    expect(requester).toContain("ALLOW_SCALE");
  });
});

describe("approval requests that always arrive", () => {
  const refuse = (error: string) => ({ body: { ok: false, error } });

  it("the bot is not in the channel: the request goes to the requester's DM, and they are told where", async () => {
    const h = await start({ verbs: ["scale"] });
    awsCluster(h, "quiet-room");
    h.bot.fake.on("chat.postEphemeral", () => refuse("not_in_channel"));
    h.bot.fake.on("chat.postMessage", (call) =>
      call.body.channel === CHANNEL ? refuse("not_in_channel") : undefined,
    );
    const view = await ask(h, "scale quiet-room worker-pool 4");
    await confirm(h, view);

    // Slack refused it where it was meant to go; the same card then went to Alice's DM
    const card = await waitForPerson(h, ALICE, "Change needs approval");
    expect(card).toContain("change_approve");
    const request = await requestOf(h, "quiet-room");
    expect(request.status).toBe("awaiting_approval");
    const told = await waitForPerson(h, ALICE, "your DM");
    expect(told).toContain(`<#${CHANNEL}>`);
    expect(h.writes).toEqual([]);
  });

  it("APPROVALS_CHANNEL refuses (channel_not_found): the request reaches the requester's DM, told where", async () => {
    const h = await start({ verbs: ["scale"], channel: "C0GONE" });
    awsCluster(h, "lost-approvals");
    h.bot.fake.on("chat.postMessage", (call) =>
      call.body.channel === "C0GONE" ? refuse("channel_not_found") : undefined,
    );
    const view = await ask(h, "scale lost-approvals worker-pool 4");
    await confirm(h, view);

    // Slack refused it where it was meant to go; the same card then went to Alice's DM
    const card = await waitForPerson(h, ALICE, "Change needs approval");
    expect(card).toContain("change_approve");
    const told = await waitForPerson(h, ALICE, "your DM");
    expect(told).toContain("<#C0GONE>");
    expect(told).not.toContain("Asked for approval in");
    expect((await requestOf(h, "lost-approvals")).status).toBe("awaiting_approval");
  });

  it("neither the channel nor the DM takes it: the request ends, not sent, and the requester is told", async () => {
    const h = await start({ verbs: ["scale"] });
    awsCluster(h, "no-way");
    h.bot.fake.on("chat.postMessage", () => refuse("not_in_channel"));
    const view = await ask(h, "scale no-way worker-pool 4");
    await confirm(h, view);

    const told = await waitForPerson(h, ALICE, "will not run");
    expect(told).toContain("not_in_channel");
    const record = await settledRecord(h, (await new ChangeStore(h.bot.db, h.clock).all())[0]!.id);
    expect(record).toMatchObject({
      status: "failed",
      reason: "the approval request could not be posted",
    });
    // its end is audited like every other end: request, then end failed
    const rows = (await changeAuditRows(h, 50)).reverse();
    expect(rows.map((row) => `${row.step}:${row.outcome}`)).toEqual([
      "request:created",
      "end:failed",
    ]);
    expect(rows[1]).toMatchObject({ changeId: record.id, requester: ALICE });
    expect(h.writes).toEqual([]);
  });

  it("an expired click closes every expired request card it finds, not only its own", async () => {
    const h = await start({ verbs: ["scale"] });
    const names = ["late-one", "late-two", "late-three"];
    for (const name of names) {
      awsCluster(h, name);
      await confirm(h, await ask(h, `scale ${name} worker-pool 4`));
    }
    const requests = await Promise.all(names.map((name) => requestOf(h, name)));
    h.clock.advance(TTL_MS + 60_000);

    await h.bot.click(APPROVE_ACTION_ID, String(requests[0]!.id), { userId: BOB });
    await waitForPerson(h, BOB, "already expired");
    const deadline = Date.now() + 3_000;
    const expiredCards = () =>
      new Set(
        h.bot.fake
          .callsTo("chat.update")
          .filter((call) => JSON.stringify(call.body).includes("Expired"))
          .map((call) => call.body.ts),
      );
    while (expiredCards().size < requests.length && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(expiredCards()).toEqual(new Set(requests.map((request) => request.requestTs)));
    // each card edited once: the clicked one by the click, the others as found
    const edits = h.bot.fake.callsTo("chat.update").map((call) => call.body.ts);
    expect(edits).toHaveLength(requests.length);
    const store = new ChangeStore(h.bot.db, h.clock);
    for (const request of requests) expect((await store.get(request.id))!.status).toBe("expired");
    expect(h.writes).toEqual([]);
  });
});
