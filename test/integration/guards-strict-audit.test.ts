import { afterEach, describe, expect, it } from "vitest";
import {
  awsCluster,
  closeChangesHarnesses,
  type ChangesHarness as Harness,
  linkWithOwnKey,
  startChangesHarness,
  strictIdentity,
} from "../support/changes-harness.ts";

/**
 * Under IDENTITY=strict `why` and `audit` read Palette's audit with the person's own key, so
 * Palette's refusal is theirs: a 403 is told in their name (never "the bot's Palette account …
 * grant its role"), a 401 unlinks the key and says to link again (never PALETTE_API_KEY), as on
 * the change path. Signed Slack requests, the simulator behind the real client.
 */

const CHANNEL = "C111";
const ALICE = "W111";
const EDITOR = { uid: "editor", name: "Eddie Editor", email: "editor@example.com" };
const BOT_BLAME = ["The bot's Palette account", "grant its role", "PALETTE_API_KEY"];

afterEach(closeChangesHarnesses);

async function start(): Promise<Harness> {
  const h = await startChangesHarness({
    simulator: { clusters: 6, seed: 33 },
    access: { allowAudit: [ALICE], allowChanges: { scale: [ALICE] } },
    bot: strictIdentity(11),
  });
  awsCluster(h, "told-right");
  return h;
}

/** `/palette <text>` as Alice: the answer at the response_url, and what reached her DM */
async function ask(h: Harness, text: string): Promise<string> {
  const answer = await h.bot.command(text, { userId: ALICE, channelId: CHANNEL });
  const [reply] = await h.bot.responses(answer.responseId, 1, 10_000);
  const dms = h.bot.fake
    .callsTo("chat.postMessage")
    .filter((call) => call.body.channel === ALICE || call.body.channel === `D${ALICE}`);
  const uploads = h.bot.fake.calls.filter((call) => call.method.startsWith("files."));
  return JSON.stringify([reply!.body, dms.map((c) => c.body), uploads.map((c) => c.body)]);
}

const linked = async (h: Harness) =>
  (await h.bot.bot.edge.commandDeps.identity!.store.get(ALICE)) !== undefined;

describe("IDENTITY=strict: Palette's audit refusing the person", () => {
  it("why: a 403 on the audit is told in the person's name", async () => {
    const h = await start();
    await linkWithOwnKey(h, ALICE, EDITOR);
    h.sim.control.addFault({ pathPrefix: "/v1/audits", kind: "status", status: 403 });
    const text = await ask(h, "why told-right");
    expect(text).toContain("Palette does not allow Eddie Editor");
    for (const blame of BOT_BLAME) expect(text).not.toContain(blame);
  });

  it("why: a 401 on the audit unlinks the key and says to link again", async () => {
    const h = await start();
    await linkWithOwnKey(h, ALICE, EDITOR);
    h.sim.control.addFault({ pathPrefix: "/v1/audits", kind: "status", status: 401 });
    const text = await ask(h, "why told-right");
    expect(text).toContain("/palette login");
    for (const blame of BOT_BLAME) expect(text).not.toContain(blame);
    expect(await linked(h)).toBe(false);
  });

  it("audit: a 403 on Palette's audit is told in the person's name", async () => {
    const h = await start();
    await linkWithOwnKey(h, ALICE, EDITOR);
    h.sim.control.addFault({ pathPrefix: "/v1/audits", kind: "status", status: 403 });
    const text = await ask(h, `audit project:${h.project} since 7d`);
    expect(text).toContain("Palette does not allow Eddie Editor");
    for (const blame of BOT_BLAME) expect(text).not.toContain(blame);
  });

  it("audit <cluster>: a revoked key refused while the cluster is looked up unlinks it, in the person's name", async () => {
    const h = await start();
    const key = await linkWithOwnKey(h, ALICE, EDITOR);
    h.sim.control.revokeUserKey(key);
    const text = await ask(h, "audit told-right since 7d");
    expect(text).toContain("/palette login");
    for (const blame of BOT_BLAME) expect(text).not.toContain(blame);
    expect(await linked(h)).toBe(false);
  });
});
