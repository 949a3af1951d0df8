import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import type { ChangePlan } from "../../../src/model/change.ts";
import { ChangeStore } from "../../../src/store/changes.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

/**
 * On PostgreSQL the replicas' clocks may disagree. The "not applied" window of an unconfirmed
 * change starts at unconfirmed_at: stamped by the replica that moved it and judged by the one that
 * follows, a follower ahead by ten minutes ended a change "not applied" the moment it was moved.
 * Stamped and judged by the database's clock, as the heartbeats are (review of issue 37, finding 8).
 */

afterEach(closeOpened);

const plan: ChangePlan = {
  verb: "delete",
  cluster: { uid: "c1", name: "web", projectUid: "p1", cloudType: "aws", state: "Running" },
};
const TEN_MINUTES = 10 * 60_000;
/** the database and this test share the machine's clock; a second of slack for a busy machine */
const CLOSE = 5_000;

const postgres = BACKENDS.find((backend) => backend.name === "postgres")!;

describe("unconfirmed_at by the database's clock on PostgreSQL", {
  timeout: POSTGRES_SETUP_TIMEOUT_MS,
}, () => {
  async function twoReplicas() {
    const db = await postgres.open();
    // the mover's clock runs ten minutes behind, the follower's ten minutes ahead
    const mover = new ChangeStore(db, new ManualClock(Date.now() - TEN_MINUTES));
    const follower = new ChangeStore(db, new ManualClock(Date.now() + TEN_MINUTES));
    return { mover, follower };
  }

  async function executing(store: ChangeStore, key: string) {
    const claim = await store.create({
      requestKey: key,
      plan,
      requester: "U1",
      channel: "C1",
      status: "executing",
    });
    return claim.record;
  }

  it("the sender's own move to unconfirmed: stamped now, and the follower sees it fresh", async () => {
    const { mover, follower } = await twoReplicas();
    const record = await executing(mover, "slack:V1");
    const moved = await mover.move(record.id, "executing", "unconfirmed", { reason: "no answer" });
    expect(Math.abs(moved!.unconfirmedAt! - Date.now())).toBeLessThan(CLOSE);
    const waited = await follower.unconfirmedForMs(record.id);
    expect(waited).toBeGreaterThanOrEqual(0);
    expect(waited).toBeLessThan(CLOSE);
  });

  it("a take-over of a stuck claim: stamped now, whatever the taking replica's clock says", async () => {
    const { mover, follower } = await twoReplicas();
    const record = await executing(mover, "slack:V2");
    // any heartbeat is older than 0 ms a moment later
    await new Promise((resolve) => setTimeout(resolve, 5));
    const taken = await mover.takeOver(record.id, 0, "reading Palette");
    expect(Math.abs(taken!.unconfirmedAt! - Date.now())).toBeLessThan(CLOSE);
    expect(await follower.unconfirmedForMs(record.id)).toBeLessThan(CLOSE);
    // not unconfirmed: nothing to wait for
    const other = await executing(mover, "slack:V3");
    expect(await follower.unconfirmedForMs(other.id)).toBeUndefined();
  });
});
