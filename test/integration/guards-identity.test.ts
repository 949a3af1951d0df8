import { afterEach, describe, expect, it } from "vitest";
import { buildIdentity } from "../../src/app/identity.ts";
import { ManualClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { Secret } from "../../src/secret.ts";
import { ChangeStore } from "../../src/store/changes.ts";
import { APPROVE_ACTION_ID } from "../../src/views/change.ts";
import {
  allChanges,
  ask as askAs,
  awsCluster,
  closeChangesHarnesses,
  confirmOk,
  type ChangesHarness as Harness,
  linkWithOwnKey,
  startChangesHarness,
  texts,
} from "../support/changes-harness.ts";

/**
 * An approval under IDENTITY=strict re-reads Palette with the requester's key. When Palette
 * refuses that key, the approver (who linked nothing) is told it is the requester's key, and the
 * requester is told what to do. Signed Slack requests, the simulator's RBAC per user key.
 */

const CHANNEL = "C909";
const PERSON = "W901";
const APPROVER = "W902";

afterEach(closeChangesHarnesses);

function start(): Promise<Harness> {
  const clock = new ManualClock(Date.UTC(2026, 10, 26, 9));
  return startChangesHarness({
    clock,
    simulator: { clusters: 8, seed: 25 },
    access: { allowChanges: { ...allChanges([PERSON]), scale: [PERSON, APPROVER] } },
    projects: () => [],
    approvals: ["scale"],
    bot: (sim) => ({
      identity: (db) =>
        buildIdentity(
          {
            mode: "strict",
            method: "key",
            keys: { current: new Secret(Buffer.alloc(32, 29).toString("base64")) },
          },
          { db, clock, logger: silentLogger, paletteApiUrl: sim.url },
        ),
    }),
  });
}

/** the request PERSON asked for, awaiting approval */
async function requested(h: Harness, text: string) {
  const { view, reply } = await askAs(h, text, {
    userId: PERSON,
    channelId: CHANNEL,
    viewPrefix: "VG",
    timeoutMs: 5_000,
  });
  if (!view) throw new Error(`no confirmation: ${reply}`);
  await confirmOk(h, view, { userId: PERSON });
  const store = new ChangeStore(h.bot.db, h.clock);
  const deadline = Date.now() + 5_000;
  for (;;) {
    const [record] = await store.all();
    if (record?.requestTs) return record;
    if (Date.now() > deadline) throw new Error("no request");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** what the bot said privately to one person (an ephemeral, or their DM) */
function toPerson(h: Harness, userId: string): string {
  return [
    ...texts(h.bot.fake.callsTo("chat.postEphemeral").filter((c) => c.body.user === userId)),
    ...texts(h.bot.fake.callsTo("chat.postMessage").filter((c) => c.body.channel === userId)),
  ].join("\n");
}

async function waitUntil(what: () => string, match: string): Promise<string> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    if (what().includes(match)) return what();
    if (Date.now() > deadline) throw new Error(`never said ${match}: ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("IDENTITY=strict: the requester's key refused at the approval", () => {
  it("a revoked key (401): the approver hears it is the requester's key, the requester to link again", async () => {
    const h = await start();
    awsCluster(h, "approve-revoked", h.sim.control.projects()[0]!);
    const key = await linkWithOwnKey(h, PERSON, {
      uid: "editor@example.com",
      name: "Eddie Editor",
      email: "editor@example.com",
    });
    const request = await requested(h, "scale approve-revoked worker-pool 5");
    h.sim.control.revokeUserKey(key);
    h.sim.control.clearRequests();
    await h.bot.click(APPROVE_ACTION_ID, String(request.id), { userId: APPROVER });

    const approver = await waitUntil(() => toPerson(h, APPROVER), "Not sent");
    expect(approver).toContain(`<@${PERSON}>`);
    expect(approver).not.toMatch(/the key you linked|your linked|your Slack account/i);
    const requester = await waitUntil(() => toPerson(h, PERSON), "/palette login");
    expect(requester).toContain("not sent");
    // the request card, which the channel reads, is not worded for the requester either
    const cards = texts(h.bot.fake.callsTo("chat.update")).join("\n");
    expect(cards).not.toMatch(/your linked|the key you linked/i);
    expect(h.sim.control.requests().filter((r) => r.method !== "GET")).toEqual([]);
    expect((await new ChangeStore(h.bot.db, h.clock).get(request.id))!.status).toBe("failed");
    // audited as the requester's identity refused, not as a Palette that could not be read
    const refused = (await h.bot.audit.recent(30)).filter(
      (row) => row.action === "change" && row.outcome === "denied",
    );
    expect(refused.map((row) => JSON.parse(row.detail!).reason)).toContain("identity");
  });

  it("a key whose user may not see the cluster (403): the approver hears whose key it is", async () => {
    const h = await start();
    const [, second] = h.sim.control.projects() as [string, string];
    awsCluster(h, "approve-forbidden", second);
    await linkWithOwnKey(h, PERSON, {
      uid: "editor@example.com",
      name: "Eddie Editor",
      email: "editor@example.com",
    });
    const request = await requested(h, "scale approve-forbidden worker-pool 5");
    // PERSON links another Palette user meanwhile, one with no role in that project
    await linkWithOwnKey(h, PERSON, {
      uid: "solo@example.com",
      name: "Sol One-Project",
      email: "solo@example.com",
    });
    await h.bot.click(APPROVE_ACTION_ID, String(request.id), { userId: APPROVER });

    const approver = await waitUntil(() => toPerson(h, APPROVER), "Not sent");
    expect(approver).toContain(`<@${PERSON}>`);
    expect(approver).toContain("Sol One-Project");
    expect(approver).not.toMatch(/your role/i);
    const requester = await waitUntil(() => toPerson(h, PERSON), "not sent");
    expect(requester).toContain("Sol One-Project");
  });
});
