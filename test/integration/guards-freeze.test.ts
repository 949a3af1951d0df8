import { afterEach, describe, expect, it } from "vitest";
import { type AccessPolicyOptions, createAccessPolicy } from "../../src/access/policy.ts";
import { ManualClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { FreezeStore } from "../../src/store/freezes.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * Who may lift a freeze: the one who set it, or the people on ALLOW_FREEZE. Unset, ALLOW_FREEZE
 * is everyone who may freeze today (any change list, or ALLOW_LAUNCH), so nothing breaks; set, it
 * alone says who may set and lift others' freezes. Every lift is audited with whose freeze it was.
 * Signed slash commands into the bot.
 */

const ALICE = "W111";
const BOB = "W222";
const LOGGER = "W333";
const ADMIN = "W444";
const CHANNEL = "C0FREEZE1";
/** a user group ALLOW_FREEZE may name; Alice and Bob are in it until a test takes them out */
const FREEZERS = "S0FREEZERS";
let freezers = new Set([ALICE, BOB]);

let h: BotHarness | undefined;
const clock = new ManualClock(Date.UTC(2026, 10, 26, 9));
afterEach(async () => {
  freezers = new Set([ALICE, BOB]);
  await h?.close();
  h = undefined;
});

async function start(extra: Partial<AccessPolicyOptions> = {}): Promise<BotHarness> {
  const policy = createAccessPolicy({
    allowLaunch: [],
    allowKubeconfig: [],
    allowChanges: {
      scale: [ALICE, BOB],
      delete: [],
      maintenance: [],
      backup: [],
      logs: [LOGGER],
      upgrade: [],
    },
    client: {
      usergroups: {
        users: {
          list: async ({ usergroup }) => ({
            ok: true,
            users: usergroup === FREEZERS ? [...freezers] : [],
          }),
        },
      },
    },
    clock,
    logger: silentLogger,
    ...extra,
  });
  h = await startBot({ clock, policy });
  return h;
}

async function say(bot: BotHarness, text: string, userId: string): Promise<string> {
  const sent = await bot.command(text, { userId, channelId: CHANNEL });
  expect(sent.status).toBe(200);
  const [answer] = await bot.responses(sent.responseId);
  return JSON.stringify(answer!.body);
}

const active = (bot: BotHarness) => new FreezeStore(bot.db, clock).active();

describe("who may lift a freeze", () => {
  it("ALLOW_FREEZE set: someone on a change list but not on it cannot lift another's freeze", async () => {
    const bot = await start({ allowFreeze: [ADMIN, ALICE] });
    expect(await say(bot, "freeze all until 4h release train", ALICE)).toContain("frozen");
    const refused = await say(bot, "unfreeze all I want to ship", BOB);
    expect(refused).toContain("<@W111>");
    expect(refused).toContain("ALLOW_FREEZE");
    expect(await active(bot)).toHaveLength(1);
    const [denied] = (await bot.audit.recent(10)).filter(
      (row) => row.action === "freeze" && row.outcome === "denied",
    );
    expect(denied?.userId).toBe(BOB);
  });

  it("ALLOW_FREEZE set: it also says who may set a freeze", async () => {
    const bot = await start({ allowFreeze: [ADMIN] });
    expect(await say(bot, "freeze all until 4h release train", BOB)).toContain("ALLOW_FREEZE");
    expect(await active(bot)).toHaveLength(0);
  });

  it("ALLOW_FREEZE set: the one who set it may lift it; someone on it may lift anyone's; each audited", async () => {
    const bot = await start({ allowFreeze: [ADMIN, ALICE] });
    await say(bot, "freeze all until 4h release train", ALICE);
    expect(await say(bot, "unfreeze all shipped", ALICE)).toContain("lifted the freeze");
    expect(await active(bot)).toHaveLength(0);

    await say(bot, "freeze all until 4h second train", ALICE);
    expect(await say(bot, "unfreeze all overriding", ADMIN)).toContain("lifted the freeze");
    expect(await active(bot)).toHaveLength(0);
    const lifts = (await bot.audit.recent(20)).filter(
      (row) => row.action === "freeze" && row.outcome === "removed",
    );
    const details = lifts.map((row) => JSON.parse(row.detail!));
    expect(details).toContainEqual(
      expect.objectContaining({
        reason: "overriding",
        frozenBy: [ALICE],
        liftedAs: "ALLOW_FREEZE",
      }),
    );
    expect(details).toContainEqual(
      expect.objectContaining({ reason: "shipped", frozenBy: [ALICE], liftedAs: "own freeze" }),
    );
  });

  it("the one who set it may lift it after leaving ALLOW_FREEZE", async () => {
    const bot = await start({ allowFreeze: [ADMIN, FREEZERS] });
    await say(bot, "freeze all until 4h release train", ALICE);
    // an admin takes Alice out of the group ALLOW_FREEZE names; the policy's cache runs out
    freezers.delete(ALICE);
    clock.advance(6 * 60_000);
    expect(await say(bot, "unfreeze all done", ALICE)).toContain("lifted the freeze");
    expect(await active(bot)).toHaveLength(0);
  });

  it("ALLOW_FREEZE unset: as before, anyone on a change list may set and lift any freeze", async () => {
    const bot = await start();
    await say(bot, "freeze all until 4h release train", ALICE);
    expect(await say(bot, "unfreeze all logs person lifts it", LOGGER)).toContain(
      "lifted the freeze",
    );
    expect(await active(bot)).toHaveLength(0);
  });

  it("two freezes of the same scope: one not on ALLOW_FREEZE lifts only their own, and is told the other holds", async () => {
    const bot = await start({ allowFreeze: [ADMIN, FREEZERS] });
    await say(bot, "freeze all until 4h alice's", ALICE);
    await say(bot, "freeze all until 6h bob's", BOB);
    freezers.delete(ALICE);
    clock.advance(6 * 60_000);
    const answer = await say(bot, "unfreeze all mine is done", ALICE);
    expect(answer).toContain("lifted the freeze");
    expect(answer).toContain("<@W222>");
    const left = await active(bot);
    expect(left.map((freeze) => freeze.frozenBy)).toEqual([BOB]);
  });
});
