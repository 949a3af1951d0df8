import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAccessPolicy } from "../../src/access/policy.ts";
import { silentLogger } from "../../src/log.ts";
import { CARD_ACTIONS } from "../../src/model/notification.ts";
import type { FleetCluster } from "../../src/simulator/types.ts";
import { HoldStore } from "../../src/store/holds.ts";
import { checkSlackLimits } from "../../src/views/limits.ts";
import { MUTE_CALLBACK_ID, MUTE_FIELDS } from "../../src/views/mute-modal.ts";
import { BACKENDS, type Backend } from "../support/backends.ts";
import type { RecordedCall } from "../support/fake-slack.ts";
import { type NotifyHarness, startNotifyHarness } from "../support/notify-harness.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";
import { interactiveBody, loadPayload } from "../support/slack-request.ts";

/**
 * Snooze and mute end to end: the REAL simulator and poller, the outbox sender and the bot's
 * Slack edge over HTTP in front of the fake Slack, one store and one ManualClock. Clicks are
 * signed block_actions built from Slack's captured payload; commands are signed slash commands.
 */

const CHANNEL = "C111"; // the channel of the captured payloads
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let h: NotifyHarness | undefined;
let bot: BotHarness | undefined;
afterEach(async () => {
  await bot?.close();
  await h?.close();
  bot = undefined;
  h = undefined;
});

const textOf = (call: RecordedCall | Record<string, unknown>) =>
  JSON.stringify(("body" in call ? (call.body as Record<string, unknown>) : call).blocks ?? "") +
  String(("body" in call ? (call.body as Record<string, unknown>) : call).text ?? "");

async function start(): Promise<{ h: NotifyHarness; bot: BotHarness; wakes: () => number }> {
  h = await startNotifyHarness({ openDb: await backend.database() });
  let wakes = 0;
  const policy = createAccessPolicy({
    allowLaunch: [],
    allowKubeconfig: [],
    // the captured payloads' user may change what the channel hears and act on cards; W222 may
    // act on cards (ack, snooze) only
    allowSubscribe: ["W111"],
    allowAck: ["W111", "W222"],
    client: { usergroups: { users: { list: async () => ({ ok: true, users: [] }) } } },
    clock: h.clock,
    logger: silentLogger,
  });
  bot = await startBot({
    fake: h.fake,
    palette: h.palette,
    clock: h.clock,
    db: h.db,
    projects: h.sim.control.projects(),
    policy,
    wakeSender: () => {
      wakes += 1;
    },
  });
  await h.subs.add({ channel: CHANNEL, kind: "all", createdBy: "W111" });
  await h.cycle(); // the baseline summary
  return { h, bot, wakes: () => wakes };
}

/** A Running, Healthy cluster whose name no other cluster has (so `/palette mute <name>` finds one). */
function quietCluster(harness: NotifyHarness, skip: string[] = []): FleetCluster {
  const all = harness.sim.control.clusters();
  const found = all.find(
    (c) =>
      c.state === "Running" &&
      c.health === "Healthy" &&
      !skip.includes(c.uid) &&
      all.filter((other) => other.name === c.name).length === 1,
  );
  if (!found) throw new Error("no quiet cluster in the simulated fleet");
  return found;
}

/** Posts a card for `cluster` in the channel (one change). */
async function cardFor(harness: NotifyHarness, cluster: FleetCluster): Promise<void> {
  harness.sim.control.setState(cluster.uid, "Upgrading");
  await harness.cycle();
  const card = harness.posts(CHANNEL).at(-1)!;
  expect(card.thread_ts).toBeUndefined();
  expect(textOf(card)).toContain("Upgrading");
}

/** A signed click on one of the card's elements, in Slack's block_actions wire format. */
async function clickCard(
  b: BotHarness,
  action: Record<string, unknown>,
  userId = "W111",
): Promise<string> {
  const { payload } = loadPayload<{ payload: Record<string, unknown> }>(
    "block_actions.button_in_message.json",
  );
  const template = (payload.actions as Array<Record<string, unknown>>)[0]!;
  const responseId = `card${Math.random().toString(36).slice(2)}`;
  const body = {
    ...payload,
    user: { ...(payload.user as object), id: userId },
    trigger_id: `${Date.now()}.333.trigger`,
    response_url: `${b.fake.url}/response/${responseId}`,
    actions: [{ block_id: template.block_id, action_ts: template.action_ts, ...action }],
  };
  const answer = await b.post(interactiveBody(body));
  expect(answer.status).toBe(200);
  return responseId;
}

const snoozeAction = (uid: string, project: string, s: string) => ({
  type: "static_select",
  action_id: CARD_ACTIONS.snooze,
  selected_option: {
    text: { type: "plain_text", text: s },
    value: JSON.stringify({ c: uid, p: project, s }),
  },
});

const button = (actionId: string, uid: string, project: string) => ({
  type: "button",
  action_id: actionId,
  text: { type: "plain_text", text: "x" },
  value: JSON.stringify({ c: uid, p: project }),
});

/** the store the tests of the current `describe.each` run on */
let backend: Backend = BACKENDS[0]!;

describe.each(BACKENDS)("on $name", { timeout: POSTGRES_SETUP_TIMEOUT_MS }, (current) => {
  beforeEach(() => {
    backend = current;
  });

  describe("snooze from the card", () => {
    it("edits the card, keeps the changes, and says them in ONE line when the hour is up", async () => {
      const { h, bot } = await start();
      const target = quietCluster(h);
      await cardFor(h, target);
      const postsBefore = h.posts(CHANNEL).length;
      const updatesBefore = h.updates(CHANNEL).length;

      const responseId = await clickCard(bot, snoozeAction(target.uid, target.projectUid, "1h"));
      const updated = await h.fake.waitFor("chat.update", updatesBefore + 1);
      const edit = updated.at(-1)!;
      expect(textOf(edit)).toContain("Snoozed by <@W111>");
      expect(textOf(edit)).toContain(CARD_ACTIONS.unsnooze);
      expect(checkSlackLimits(edit.body.blocks as never)).toEqual([]);
      const [confirm] = await bot.responses(responseId);
      expect(confirm!.body.response_type).toBe("ephemeral");
      expect(textOf(confirm!)).toContain("Snoozed");
      expect(checkSlackLimits(confirm!.body.blocks as never)).toEqual([]);
      expect(await h.db.all("SELECT action, outcome FROM audit")).toContainEqual({
        action: "snooze",
        outcome: "created",
      });

      // changes during the snooze post nothing
      h.sim.control.setState(target.uid, "Running");
      await h.cycle();
      h.sim.control.setHealth(target.uid, "UnHealthy", "etcd <!channel> degraded");
      await h.cycle();
      expect(h.posts(CHANNEL)).toHaveLength(postsBefore);
      expect(h.updates(CHANNEL)).toHaveLength(updatesBefore + 1);

      // past the hour, one cycle: the card is brought up to date and ONE line says what happened
      h.clock.advance(HOUR);
      await h.cycle();
      const posts = h.posts(CHANNEL).slice(postsBefore);
      expect(posts).toHaveLength(1);
      const line = posts[0]!;
      expect(line.thread_ts).toBeDefined();
      expect(String(line.reply_broadcast)).toBe("true");
      expect(String(line.text)).toBe(
        `:sleeping: Snooze on *${target.name}* ended: 2 changes while snoozed (Upgrading → Running, health lost); now Running, UnHealthy`,
      );
      expect(checkSlackLimits(line.blocks as never)).toEqual([]);
      const card = h.updates(CHANNEL).at(-1)!;
      expect(textOf(card)).not.toContain("Snoozed");
      expect(textOf(card)).toContain("etcd &lt;!channel&gt; degraded");
      expect(await new HoldStore(h.db).list()).toEqual([]);

      // and afterwards changes are posted one by one again
      h.sim.control.setHealth(target.uid, "Healthy");
      await h.cycle();
      expect(h.posts(CHANNEL).length).toBe(postsBefore + 2);
    });

    it("ends a snooze with no change meanwhile silently", async () => {
      const { h, bot } = await start();
      const target = quietCluster(h);
      await cardFor(h, target);
      const posts = h.posts(CHANNEL).length;
      const updates = h.updates(CHANNEL).length;
      await clickCard(bot, snoozeAction(target.uid, target.projectUid, "4h"));
      await h.fake.waitFor("chat.update", updates + 1);
      await h.cycle();
      h.clock.advance(4 * HOUR);
      await h.cycle();
      await h.cycle();
      expect(h.posts(CHANNEL)).toHaveLength(posts);
      expect(await new HoldStore(h.db).list()).toEqual([]);
    });

    it("refuses a snooze to a user ALLOW_ACK does not grant; allows one it grants", async () => {
      const { h, bot } = await start();
      const target = quietCluster(h);
      await cardFor(h, target);
      const refused = await clickCard(
        bot,
        snoozeAction(target.uid, target.projectUid, "1h"),
        "W999",
      );
      const [answer] = await bot.responses(refused);
      expect(answer!.body.response_type).toBe("ephemeral");
      expect(textOf(answer!)).toContain("ALLOW_ACK");
      expect(await new HoldStore(h.db).get(CHANNEL, target.uid, "snooze")).toBeUndefined();
      // snoozing is on-call work: ALLOW_ACK grants it without ALLOW_SUBSCRIBE
      const granted = await clickCard(
        bot,
        snoozeAction(target.uid, target.projectUid, "1h"),
        "W222",
      );
      const [confirm] = await bot.responses(granted);
      expect(textOf(confirm!)).toContain("Snoozed");
      expect(await new HoldStore(h.db).get(CHANNEL, target.uid, "snooze")).toMatchObject({
        userId: "W222",
      });
    });

    it("snoozes until next weekday 09:00 in the user's zone from users.info", async () => {
      const { h, bot } = await start();
      h.fake.on("users.info", (call) => ({
        body: { ok: true, user: { id: call.body.user, tz: "Asia/Tokyo" } },
      }));
      const target = quietCluster(h);
      await cardFor(h, target);
      const responseId = await clickCard(
        bot,
        snoozeAction(target.uid, target.projectUid, "weekday"),
      );
      const [confirm] = await bot.responses(responseId);
      expect(textOf(confirm!)).toContain("Asia/Tokyo");
      expect(checkSlackLimits(confirm!.body.blocks as never)).toEqual([]);
      const hold = await new HoldStore(h.db).get(CHANNEL, target.uid, "snooze");
      // the harness's clock: Thursday 2026-01-01 12:00 UTC = 21:00 in Tokyo → Friday 09:00 JST
      expect(new Date(hold!.untilMs).toISOString()).toBe("2026-01-02T00:00:00.000Z");
      expect(h.fake.callsTo("users.info").at(-1)!.body.user).toBe("W111");
    });

    it("snoozes by UTC when users.info fails, and says so", async () => {
      const { h, bot } = await start();
      h.fake.on("users.info", () => ({ body: { ok: false, error: "missing_scope" } }));
      const target = quietCluster(h);
      await cardFor(h, target);
      const responseId = await clickCard(
        bot,
        snoozeAction(target.uid, target.projectUid, "weekday"),
      );
      const [confirm] = await bot.responses(responseId);
      expect(textOf(confirm!)).toContain("UTC: Slack did not tell me your time zone");
      const hold = await new HoldStore(h.db).get(CHANNEL, target.uid, "snooze");
      expect(new Date(hold!.untilMs).toISOString()).toBe("2026-01-02T09:00:00.000Z");
    });

    it("Unsnooze ends it at once: the summary is queued and the sender woken", async () => {
      const { h, bot, wakes } = await start();
      const target = quietCluster(h);
      await cardFor(h, target);
      const posts = h.posts(CHANNEL).length;
      const updates = h.updates(CHANNEL).length;
      await clickCard(bot, snoozeAction(target.uid, target.projectUid, "24h"));
      await h.fake.waitFor("chat.update", updates + 1);
      h.sim.control.setState(target.uid, "Running");
      await h.cycle();
      expect(h.posts(CHANNEL)).toHaveLength(posts);

      const responseId = await clickCard(
        bot,
        button(CARD_ACTIONS.unsnooze, target.uid, target.projectUid),
      );
      const [confirm] = await bot.responses(responseId);
      expect(textOf(confirm!)).toContain("1 change");
      expect(checkSlackLimits(confirm!.body.blocks as never)).toEqual([]);
      expect(wakes()).toBe(1);
      await h.sender.drainAll();
      const line = h.posts(CHANNEL).at(-1)!;
      expect(String(line.text)).toBe(
        `:sleeping: Snooze on *${target.name}* ended early by <@W111>: 1 change while snoozed (Upgrading → Running); now Running, Healthy`,
      );
      expect(h.posts(CHANNEL)).toHaveLength(posts + 1);
    });
  });

  describe("mute", () => {
    it("/palette mute keeps the changes, lists the mute, and says them in one line after expiry", async () => {
      const { h, bot } = await start();
      const target = quietCluster(h);
      await cardFor(h, target);
      const posts = h.posts(CHANNEL).length;
      const updates = h.updates(CHANNEL).length;

      const muted = await bot.command(`mute ${target.name} 1d maintenance`);
      expect(muted.status).toBe(200);
      const [answer] = await bot.responses(muted.responseId);
      expect(answer!.body.response_type).toBe("in_channel");
      expect(textOf(answer!)).toContain("Muted");
      const edit = await h.fake.waitFor("chat.update", updates + 1);
      expect(textOf(edit.at(-1)!)).toContain("Muted by <@W111>");

      h.sim.control.setState(target.uid, "Running");
      await h.cycle();
      h.sim.control.setHealth(target.uid, "UnHealthy", "disk pressure");
      await h.cycle();
      expect(h.posts(CHANNEL)).toHaveLength(posts);

      const list = await bot.command("mutes");
      const [listed] = await bot.responses(list.responseId);
      expect(textOf(listed!)).toContain(target.name);
      expect(textOf(listed!)).toContain("maintenance");
      expect(textOf(listed!)).toContain("<@W111>");

      h.clock.advance(DAY);
      await h.cycle();
      const after = h.posts(CHANNEL).slice(posts);
      expect(after).toHaveLength(1);
      expect(String(after[0]!.text)).toBe(
        `:mute: Mute on *${target.name}* ended (set by <@W111>: maintenance): 2 changes while muted (Upgrading → Running, health lost); now Running, UnHealthy`,
      );
      expect(await new HoldStore(h.db).list()).toEqual([]);
    });

    it("refuses mute to a user ALLOW_SUBSCRIBE does not grant, and audits it", async () => {
      const { h, bot } = await start();
      const target = quietCluster(h);
      const refused = await bot.command(`mute ${target.name} 7d`, { userId: "U999" });
      const [answer] = await bot.responses(refused.responseId);
      expect(answer!.body.response_type).toBe("ephemeral");
      expect(textOf(answer!)).toContain("may not mute");
      expect(textOf(answer!)).toContain("ALLOW_SUBSCRIBE");
      expect(await new HoldStore(h.db).list()).toEqual([]);
      expect(await h.db.all("SELECT user_id, action, outcome FROM audit")).toContainEqual({
        user_id: "U999",
        action: "mute",
        outcome: "denied",
      });
    });

    it("the card's Mute button opens the modal; a past date is a field error; a good one mutes", async () => {
      const { h, bot } = await start();
      const target = quietCluster(h);
      await cardFor(h, target);
      await clickCard(bot, button(CARD_ACTIONS.mute, target.uid, target.projectUid));
      const [opened] = await h.fake.waitFor("views.open");
      const view = opened!.body.view as {
        callback_id: string;
        private_metadata: string;
        blocks: unknown[];
      };
      expect(view.callback_id).toBe(MUTE_CALLBACK_ID);
      expect(JSON.stringify(view.blocks)).toContain(target.name);

      const submit = async (length: string, date: string | null, reason: string) => {
        const { payload } = loadPayload<{ payload: Record<string, unknown> }>(
          "view_submission.json",
        );
        const values = {
          [MUTE_FIELDS.length]: {
            [MUTE_FIELDS.length]: {
              type: "radio_buttons",
              selected_option: { text: { type: "plain_text", text: length }, value: length },
            },
          },
          [MUTE_FIELDS.until]: { [MUTE_FIELDS.until]: { type: "datepicker", selected_date: date } },
          [MUTE_FIELDS.reason]: {
            [MUTE_FIELDS.reason]: { type: "plain_text_input", value: reason },
          },
        };
        const body = {
          ...payload,
          view: { ...(payload.view as object), ...view, id: "VMUTE", state: { values } },
        };
        const answer = await bot.post(interactiveBody(body));
        return { status: answer.status, body: answer.text ? JSON.parse(answer.text) : {} };
      };

      const past = await submit("until", "2025-12-31", "no");
      expect(past.body).toEqual({
        response_action: "errors",
        errors: { [MUTE_FIELDS.until]: expect.stringMatching(/after today/) },
      });
      expect(await new HoldStore(h.db).list()).toEqual([]);

      const updates = h.updates(CHANNEL).length;
      const ok = await submit("until", "2026-01-08", "kernel <!channel> upgrade");
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({});
      const edit = await h.fake.waitFor("chat.update", updates + 1);
      expect(textOf(edit.at(-1)!)).toContain("Muted by <@W111>");
      expect(textOf(edit.at(-1)!)).toContain("kernel &lt;!channel&gt; upgrade");
      const hold = await new HoldStore(h.db).get(CHANNEL, target.uid, "mute");
      expect(hold).toMatchObject({
        untilMs: Date.UTC(2026, 0, 8),
        reason: "kernel <!channel> upgrade",
      });
      const [confirm] = await h.fake.waitFor("chat.postEphemeral");
      expect(confirm!.body).toMatchObject({ channel: CHANNEL, user: "W111" });
    });
  });
});
