import { afterEach, describe, expect, it } from "vitest";
import { type ChangeRecord, ChangeStore } from "../../src/store/changes.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import {
  awsCluster,
  type ChangesHarness,
  closeChangesHarnesses,
  confirmOk,
  openConfirmation,
  startChangesHarness,
  waitForCall,
} from "../support/changes-harness.ts";

/**
 * Issue 37 item 4: the change sender's fence. The claim is checked before every attempt of the
 * write (a 429's re-send after its Retry-After included), not only before the first, so a claim
 * the lease holder took over while the sender waited sends nothing more; a sender whose last good
 * heartbeat is older than the stuck bound less a margin does not send; and the "not applied"
 * window runs from when the change became unconfirmed, not from the row's last touch (a card
 * recorded late). Signed Slack requests, the simulator, the real client; clocks moved by hand.
 */

const ALICE = "W111";
/** the scale's write: PUT …/cloudconfigs/aws/{uid}/machinePools/{pool} */
const POOL_WRITES = "/v1/cloudconfigs/aws/";

const sims: ChangesHarness["sim"][] = [];
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const sim of sims.splice(0)) sim.control.release();
  await closeChangesHarnesses();
  for (const close of closers.splice(0).reverse()) await close();
});

async function only(h: ChangesHarness): Promise<ChangeRecord | undefined> {
  const [record] = await new ChangeStore(h.bot.db, h.clock).all();
  return record;
}

async function until(what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`waited for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * A store whose heartbeat statements fail while `refusing()` (the sender looks dead to the lease
 * holder, as when its replica lost the database for a while); everything else goes through.
 */
function _beatsRefusedWhile(inner: SqlDb, refusing: () => boolean): SqlDb {
  return new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "get") {
        return (sql: string, params?: unknown[]) => {
          if (refusing() && /^UPDATE changes SET heartbeat_at/.test(sql.trim())) {
            return Promise.reject(new Error("connection lost"));
          }
          return target.get(sql, params as never);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("the change sender's fence", () => {
  it("the 'not applied' window runs from when it became unconfirmed: a card recorded late does not restart it", async () => {
    const h = await startChangesHarness({
      answerTimeoutMs: 400,
      access: { allowChanges: { scale: [ALICE] } },
    });
    awsCluster(h, "lost-answer");
    const view = await openConfirmation(h, "scale lost-answer worker-pool 5", { userId: ALICE });
    // the connection drops after the request went out and before Palette took it
    h.sim.control.addFault({ pathPrefix: POOL_WRITES, method: "PUT", kind: "reset", times: 1 });
    await confirmOk(h, view, { userId: ALICE });
    await waitForCall(h, "chat.postMessage", "unconfirmed");
    await until("unconfirmed with its card", async () => {
      const record = await only(h);
      return record?.status === "unconfirmed" && record.cardTs !== undefined;
    });
    const record = (await only(h))!;
    // 100 s later the card is recorded again (a card delivery Slack answered late)
    h.clock.advance(100_000);
    await new ChangeStore(h.bot.db, h.clock).setCard(
      record.id,
      record.cardChannel!,
      record.cardTs!,
    );
    // 130 s after it became unconfirmed: past the 2-minute window, 30 s after the card
    h.clock.advance(30_000);
    await h.bot.bot.edge.changeFollower.tick();
    expect((await only(h))?.status).toBe("failed");
    const ended = await waitForCall(h, "chat.update", "not applied");
    expect(ended).toContain("was not sent again");
    expect(h.writes.filter((write) => write.method === "PUT")).toHaveLength(1);
  });
});
