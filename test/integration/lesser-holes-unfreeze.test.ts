import { afterEach, describe, expect, it } from "vitest";
import { createAccessPolicy } from "../../src/access/policy.ts";
import { ManualClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { FreezeStore } from "../../src/store/freezes.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * `/palette unfreeze` says why, like `freeze`, and the lift is told where the freeze was
 * announced (the channel `/palette freeze` answered in), not only where `unfreeze` was typed;
 * the audit row keeps the reason.
 */

const ALICE = "W111";
const BOB = "W222";
const ANNOUNCED = "CRELEASE1";
const ELSEWHERE = "COPS00001";

let h: BotHarness | undefined;
const clock = new ManualClock(Date.UTC(2026, 10, 26, 9));
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function start(): Promise<BotHarness> {
  const policy = createAccessPolicy({
    allowLaunch: [],
    allowKubeconfig: [],
    allowChanges: {
      scale: [ALICE, BOB],
      delete: [],
      maintenance: [],
      backup: [],
      logs: [],
      upgrade: [],
    },
    client: { usergroups: { users: { list: async () => ({ ok: true, users: [] }) } } },
    clock,
    logger: silentLogger,
  });
  h = await startBot({ clock, policy });
  return h;
}

async function say(bot: BotHarness, text: string, userId: string, channelId: string) {
  const sent = await bot.command(text, { userId, channelId });
  expect(sent.status).toBe(200);
  const [answer] = await bot.responses(sent.responseId);
  return answer!.body as Record<string, unknown>;
}

const postsIn = (bot: BotHarness, channel: string) =>
  bot.fake.callsTo("chat.postMessage").filter((call) => call.body.channel === channel);

describe("unfreeze", () => {
  it("needs a reason: without one nothing is lifted", async () => {
    const bot = await start();
    await say(bot, "freeze all until 4h release train", ALICE, ANNOUNCED);
    const answer = await say(bot, "unfreeze all", BOB, ELSEWHERE);
    expect(JSON.stringify(answer)).toContain("Say why the freeze is lifted");
    expect(await new FreezeStore(bot.db, clock).active()).toHaveLength(1);
  });

  it("is announced where the freeze was announced, with who and why, and audited with the reason", async () => {
    const bot = await start();
    await say(bot, "freeze all until 4h release <!channel> train", ALICE, ANNOUNCED);
    const answer = await say(bot, "unfreeze all release shipped & verified", BOB, ELSEWHERE);
    // where it was typed, for the channel to see
    expect(answer).toMatchObject({ response_type: "in_channel" });
    expect(JSON.stringify(answer)).toContain("release shipped &amp; verified");
    expect(await new FreezeStore(bot.db, clock).active()).toEqual([]);

    // and where the freeze was announced
    const [told] = await bot.fake.waitFor("chat.postMessage");
    expect(told!.body.channel).toBe(ANNOUNCED);
    const said = JSON.stringify(told!.body);
    expect(said).toContain("<@W222> lifted the freeze");
    expect(said).toContain("release shipped &amp; verified");
    expect(String(told!.body.text)).not.toContain("& ");

    const [row] = (await bot.audit.recent(10)).filter(
      (entry) => entry.action === "freeze" && entry.outcome === "removed",
    );
    expect(JSON.parse(row!.detail!)).toMatchObject({
      reason: "release shipped & verified",
      toldIn: [ELSEWHERE, ANNOUNCED],
    });
  });

  it("lifted in the channel it was announced in: told once, there", async () => {
    const bot = await start();
    await say(bot, "freeze all until 4h release train", ALICE, ANNOUNCED);
    await say(bot, "unfreeze all shipped", BOB, ANNOUNCED);
    // the lift's audit row is written once every channel it was told in has been posted to (its
    // answer after that): it names this channel alone, and nothing was posted here besides
    const [row] = (await bot.audit.recent(10)).filter(
      (entry) => entry.action === "freeze" && entry.outcome === "removed",
    );
    expect(JSON.parse(row!.detail!)).toMatchObject({ toldIn: [ANNOUNCED] });
    expect(postsIn(bot, ANNOUNCED)).toEqual([]);
  });

  it("when the bot cannot post where the freeze was announced, the person who lifted it is told", async () => {
    const bot = await start();
    await say(bot, "freeze all until 4h release train", ALICE, ANNOUNCED);
    bot.fake.on("chat.postMessage", () => ({ body: { ok: false, error: "not_in_channel" } }));
    const answer = await say(bot, "unfreeze all shipped", BOB, ELSEWHERE);
    expect(JSON.stringify(answer)).toContain(`Not told in <#${ANNOUNCED}>`);
    const [row] = (await bot.audit.recent(10)).filter((entry) => entry.outcome === "removed");
    expect(JSON.parse(row!.detail!)).toMatchObject({ notToldIn: [ANNOUNCED] });
  });
});
