import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import { type ChangeRecord, ChangeStore } from "../../src/store/changes.ts";
import { REJECT_ACTION_ID } from "../../src/views/change.ts";
import {
  awsCluster,
  CHANNEL,
  type ChangesHarness,
  closeChangesHarnesses,
  openConfirmation,
  startChangesHarness,
  submitConfirmation,
  texts,
} from "../support/changes-harness.ts";

/**
 * Rejecting a request (or the requester withdrawing it) stops a change; a freeze, which exists to
 * stop changes, never stands in its way, and a requester who lost their ALLOW_* since asking may
 * still withdraw. Someone who could never have approved it still cannot reject it. Signed Slack
 * requests into the bot, the simulator behind it.
 */

const ALICE = "W111";
const BOB = "W222";
const CAROL = "W333";
const SCALERS = "S0SCALERS";

afterEach(closeChangesHarnesses);

async function start(): Promise<ChangesHarness & { scalers: Set<string> }> {
  const scalers = new Set([ALICE]);
  const h = await startChangesHarness({
    clock: new ManualClock(Date.UTC(2026, 10, 26, 9)),
    simulator: { clusters: 4, seed: 25 },
    access: { allowChanges: { scale: [SCALERS, BOB] } },
    groupMembers: (usergroup) => (usergroup === SCALERS ? [...scalers] : []),
    approvals: { verbs: ["scale"] },
  });
  return Object.assign(h, { scalers });
}

async function requestFor(h: ChangesHarness, name: string): Promise<ChangeRecord> {
  awsCluster(h, name);
  const view = await openConfirmation(h, `scale ${name} worker-pool 5`, { userId: ALICE });
  await submitConfirmation(h, view, { userId: ALICE });
  const store = new ChangeStore(h.bot.db, h.clock);
  const deadline = Date.now() + 3_000;
  for (;;) {
    const record = (await store.all()).find((r) => r.plan.cluster.name === name);
    if (record?.requestTs) return record;
    if (Date.now() > deadline) throw new Error(`no request for ${name}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function statusAfterClick(h: ChangesHarness, id: number, userId: string) {
  const before = h.bot.fake.calls.length;
  await h.bot.click(REJECT_ACTION_ID, String(id), { userId });
  const store = new ChangeStore(h.bot.db, h.clock);
  const deadline = Date.now() + 3_000;
  for (;;) {
    const record = await store.get(id);
    if (record?.status === "rejected") return record.status;
    // or the clicker was told why not
    const told = texts(
      h.bot.fake.calls.slice(before).filter((c) => c.method === "chat.postEphemeral"),
    );
    if (told.length > 0) return told.join("\n");
    if (Date.now() > deadline) throw new Error(`nothing after the click: ${record?.status}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function freezeAll(h: ChangesHarness) {
  const sent = await h.bot.command("freeze all until 4h incident", {
    userId: BOB,
    channelId: CHANNEL,
  });
  expect(sent.status).toBe(200);
  const [answer] = await h.bot.responses(sent.responseId);
  expect(JSON.stringify(answer!.body)).toContain("frozen");
}

describe("reject and withdraw", () => {
  it("an approver rejects a request during a freeze: it is rejected, not 'Changes are frozen'", async () => {
    const h = await start();
    const request = await requestFor(h, "grow-me");
    await freezeAll(h);
    expect(await statusAfterClick(h, request.id, BOB)).toBe("rejected");
    expect(h.writes).toEqual([]);
    const [row] = (await h.bot.audit.recent(20)).filter((r) => r.outcome === "rejected");
    expect(row?.userId).toBe(BOB);
  });

  it("the requester withdraws during a freeze, after losing ALLOW_SCALE: withdrawn", async () => {
    const h = await start();
    const request = await requestFor(h, "grow-too");
    await freezeAll(h);
    // an admin takes Alice out of the group ALLOW_SCALE names; the policy's cache runs out
    h.scalers.delete(ALICE);
    h.clock.advance(6 * 60_000);
    expect(await statusAfterClick(h, request.id, ALICE)).toBe("rejected");
    expect(h.writes).toEqual([]);
  });

  it("someone on no list still cannot reject another's request", async () => {
    const h = await start();
    const request = await requestFor(h, "grow-three");
    const said = await statusAfterClick(h, request.id, CAROL);
    expect(said).toContain("not allowed to scale");
    expect((await new ChangeStore(h.bot.db, h.clock).get(request.id))?.status).toBe(
      "awaiting_approval",
    );
  });
});
