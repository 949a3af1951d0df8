import { afterEach, describe, expect, it } from "vitest";
import { ChangeStore } from "../../src/store/changes.ts";
import {
  allChanges,
  awsCluster,
  type ChangesHarness,
  closeChangesHarnesses,
  confirmOk,
  openConfirmation,
  RESIZE_MS,
  startChangesHarness,
  texts,
  waitForCall,
} from "../support/changes-harness.ts";

/**
 * A renewal whose answer was lost (issue 31, item 5): Palette took the PATCH, but renewing the
 * control plane's certificates takes minutes in real Palette, so the follower keeps reading
 * until the earliest expiry moves (or the renewal's own bound), not the two minutes that fit a
 * resize. Signed Slack requests, the simulator with a renewal of 4 minutes, the clock by hand.
 */

const ALICE = "W111";
const RENEW_TAKES_MS = 4 * 60_000;

afterEach(closeChangesHarnesses);

async function start(): Promise<ChangesHarness> {
  return startChangesHarness({
    simulator: {
      clusters: 12,
      seed: 21,
      lifecycle: { provisioningMs: RESIZE_MS, deletingMs: RESIZE_MS, renewMs: RENEW_TAKES_MS },
    },
    answerTimeoutMs: 400,
    access: { allowChanges: allChanges([ALICE]) },
  });
}

async function only(h: ChangesHarness) {
  const [record] = await new ChangeStore(h.bot.db, h.clock).all();
  return record!;
}

describe("an unconfirmed renewal", () => {
  it("is followed past two minutes until the expiry moves, then ends Renewed; one PATCH", async () => {
    const h = await start();
    const cluster = awsCluster(h, "slow-renew");
    const view = await openConfirmation(h, "renew certificates slow-renew", { userId: ALICE });
    // Palette takes the PATCH, then answers 2 s later: past the client's 400 ms
    h.sim.control.addFault({
      pathPrefix: `/v1/spectroclusters/${cluster.uid}/k8certificates/renew`,
      method: "PATCH",
      kind: "late",
      latencyMs: 2_000,
      times: 1,
    });
    await confirmOk(h, view, { userId: ALICE });
    await waitForCall(h, "chat.postMessage", "Palette did not answer");
    await h.bot.bot.edge.changeFollower.tick();
    expect((await only(h)).status).toBe("unconfirmed");

    // three minutes on, Palette is still renewing: not "could not be checked"
    h.clock.advance(3 * 60_000);
    await h.bot.bot.edge.changeFollower.tick();
    expect((await only(h)).status).toBe("unconfirmed");
    expect(texts(h.bot.fake.callsTo("chat.update")).join("\n")).not.toContain(
      "could not be checked",
    );

    // the renewal lands: the earliest expiry moved, so it took effect and ends Renewed
    h.clock.advance(RENEW_TAKES_MS);
    await h.bot.bot.edge.changeFollower.tick();
    const done = await waitForCall(h, "chat.update", "Renewed the certificates of");
    expect(done).toContain("earliest now expires");
    expect(await only(h)).toMatchObject({ status: "done", requester: ALICE });
    expect(h.writes).toEqual([
      { method: "PATCH", path: `/v1/spectroclusters/${cluster.uid}/k8certificates/renew` },
    ]);
  });

  it("ends 'could not be checked' only past the renewal's bound, and says how long it waited", async () => {
    const h = await start();
    const cluster = awsCluster(h, "never-renews");
    const view = await openConfirmation(h, "renew certificates never-renews", { userId: ALICE });
    // the connection drops before Palette took it: the expiry never moves
    h.sim.control.addFault({
      pathPrefix: `/v1/spectroclusters/${cluster.uid}/k8certificates/renew`,
      method: "PATCH",
      kind: "reset",
      times: 1,
    });
    await confirmOk(h, view, { userId: ALICE });
    await waitForCall(h, "chat.postMessage", "Palette did not answer");
    for (const minutes of [5, 10, 10]) {
      h.clock.advance(minutes * 60_000);
      await h.bot.bot.edge.changeFollower.tick();
      expect((await only(h)).status).toBe("unconfirmed");
    }
    h.clock.advance(10 * 60_000);
    await h.bot.bot.edge.changeFollower.tick();
    const ended = await waitForCall(h, "chat.update", "could not be checked");
    expect(ended).toContain("was not sent again");
    expect(ended).toContain("did not move");
    expect((await only(h)).status).toBe("failed");
    expect(h.writes).toHaveLength(1);
  });
});
