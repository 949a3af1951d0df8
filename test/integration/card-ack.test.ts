import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAccessPolicy } from "../../src/access/policy.ts";
import { silentLogger } from "../../src/log.ts";
import { RUN_COMMAND_ACTION } from "../../src/model/command-text.ts";
import { CARD_ACTIONS } from "../../src/model/notification.ts";
import { AckStore } from "../../src/store/acks.ts";
import { CardStore } from "../../src/store/cards.ts";
import { checkSlackLimits } from "../../src/views/limits.ts";
import { BACKENDS, type Backend } from "../support/backends.ts";
import type { RecordedCall } from "../support/fake-slack.ts";
import { type NotifyHarness, startNotifyHarness } from "../support/notify-harness.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";
import { interactiveBody, loadPayload } from "../support/slack-request.ts";

/**
 * Issue 13, acknowledge from the card: the real pipeline (simulator → poller → sender) posts a
 * card to the fake Slack, and signed `block_actions` built from Slack's captured payload click
 * its buttons on the bot's real HTTP endpoint. Both share one store, as in production.
 */

let n: NotifyHarness | undefined;
let bot: BotHarness | undefined;
afterEach(async () => {
  await bot?.close();
  await n?.close();
  bot = undefined;
  n = undefined;
});

const ONCALL = "W111";
const SECOND = "W222";
const OUTSIDER = "W999";

interface Element {
  type: string;
  action_id?: string;
  value?: string;
}

/**
 * The pipeline posts a card to C1: by default for a cluster that lost its health; `comingUp`:
 * for a new cluster still provisioning (no health yet), whose trouble can still get worse.
 */
async function setup(options: { comingUp?: boolean } = {}) {
  n = await startNotifyHarness({ openDb: await backend.database() });
  const policy = createAccessPolicy({
    allowLaunch: [],
    allowKubeconfig: [],
    allowAck: [ONCALL, SECOND],
    client: { usergroups: { users: { list: async () => ({ ok: true, users: [] }) } } },
    clock: n.clock,
    logger: silentLogger,
  });
  bot = await startBot({
    fake: n.fake,
    db: n.db,
    clock: n.clock,
    palette: n.palette,
    projects: n.sim.control.projects(),
    policy,
  });
  await n.subs.add({ channel: "C1", kind: "all", createdBy: "U1" });
  await n.cycle();
  let target: { uid: string; name: string };
  if (options.comingUp) {
    target = n.sim.control.addCluster({
      name: "edge-coming-up",
      projectUid: n.sim.control.projects()[0]!,
      provider: "aws",
    });
    n.sim.control.setState(target.uid, "Provisioning");
    n.sim.control.setHealth(target.uid, "Unknown");
  } else {
    target = n.sim.control.clusters().find((c) => c.state === "Running" && c.health === "Healthy")!;
    n.sim.control.setHealth(target.uid, "UnHealthy", "etcd member 2 unreachable");
  }
  await n.cycle();
  const card = (await new CardStore(n.db).get("C1", target.uid))!;
  expect(card).toBeDefined();
  const posted = n.posts("C1").at(-1)!;
  expect(posted.thread_ts).toBeUndefined();
  const elements = (posted.blocks as Array<{ type: string; elements?: Element[] }>)
    .filter((block) => block.type === "actions")
    .flatMap((block) => block.elements ?? []);
  return { n, bot, target, card, elements };
}

let sequence = 0;

/** A click on one element of the card message, as Slack sends it (the captured payload, re-aimed). */
async function click(
  harness: BotHarness,
  card: { channel: string; ts: string },
  element: Element,
  userId: string,
): Promise<{ status: number; responseId: string }> {
  const { payload } = loadPayload<{ payload: Record<string, unknown> }>(
    "block_actions.button_in_message.json",
  );
  const action = (payload.actions as Array<Record<string, unknown>>)[0]!;
  const responseId = `card${++sequence}`;
  const body = interactiveBody({
    ...payload,
    user: { ...(payload.user as object), id: userId },
    container: {
      ...(payload.container as object),
      message_ts: card.ts,
      channel_id: card.channel,
      is_ephemeral: false,
    },
    channel: { ...(payload.channel as object), id: card.channel },
    trigger_id: `${sequence}.333.trigger`,
    response_url: `${harness.fake.url}/response/${responseId}`,
    actions: [
      {
        ...action,
        action_id: element.action_id,
        value: element.value,
        text: { type: "plain_text", text: "Acknowledge", emoji: true },
      },
    ],
  });
  const { status } = await harness.post(body);
  return { status, responseId };
}

const text = (call: RecordedCall | Record<string, unknown>) =>
  JSON.stringify("body" in call ? (call as RecordedCall).body : call);
const ackButton = (elements: Element[]) =>
  elements.find((element) => element.action_id === CARD_ACTIONS.ack)!;

/** the store the tests of the current `describe.each` run on */
let backend: Backend = BACKENDS[0]!;

describe.each(BACKENDS)("on $name", { timeout: POSTGRES_SETUP_TIMEOUT_MS }, (current) => {
  beforeEach(() => {
    backend = current;
  });

  describe("Acknowledge on a notification card", () => {
    it("edits the card in place and adds a thread line; later worse news stays in the thread; recovery clears it and says who had it", async () => {
      const { n, bot, target, card, elements } = await setup({ comingUp: true });
      expect(text(n.posts("C1").at(-1)!)).toContain("New cluster edge-coming-up: Provisioning");
      const updatesBefore = n.fake.callsTo("chat.update").length;
      const postsBefore = n.fake.callsTo("chat.postMessage").length;

      const { status } = await click(bot, card, ackButton(elements), ONCALL);
      expect(status).toBe(200);
      const [update] = (await n.fake.waitFor("chat.update", updatesBefore + 1)).slice(
        updatesBefore,
      );
      expect(update!.body).toMatchObject({ channel: "C1", ts: card.ts });
      expect(text(update!)).toContain(`Acknowledged by <@${ONCALL}>`);
      expect(text(update!)).not.toContain(CARD_ACTIONS.ack); // no second Acknowledge
      expect(checkSlackLimits(update!.body.blocks as never)).toEqual([]);
      const [line] = (await n.fake.waitFor("chat.postMessage", postsBefore + 1)).slice(postsBefore);
      expect(line!.body).toMatchObject({ channel: "C1", thread_ts: card.ts });
      expect(text(line!)).toContain(`Acknowledged by <@${ONCALL}>`);
      expect(checkSlackLimits(line!.body.blocks as never)).toEqual([]);
      expect((await new AckStore(n.db).get("C1", target.uid))?.userId).toBe(ONCALL);
      expect((await bot.audit.recent())[0]).toMatchObject({
        userId: ONCALL,
        action: "ack",
        outcome: "granted",
      });

      // the same trouble gets worse: the cluster comes up unhealthy (health lost, alert raised)
      n.sim.control.setState(target.uid, "Running");
      n.sim.control.setHealth(target.uid, "UnHealthy", "kubelet not ready on 2 nodes");
      await n.cycle();
      const worse = n.posts("C1").at(-1)!;
      expect(worse.thread_ts).toBe(card.ts);
      expect(text(worse)).toContain("Health lost");
      expect(text(worse)).toContain("ClusterHealth alert raised");
      expect(String(worse.reply_broadcast)).toBe("false");
      expect(text(n.updates("C1").at(-1)!)).toContain(`Acknowledged by <@${ONCALL}>`);

      n.sim.control.setHealth(target.uid, "Healthy");
      await n.cycle();
      const recovered = n.posts("C1").at(-1)!;
      expect(recovered.thread_ts).toBe(card.ts);
      expect(text(recovered)).toContain(`Recovered; <@${ONCALL}> had acknowledged it`);
      const after = n.updates("C1").at(-1)!;
      expect(text(after)).not.toContain("Acknowledged by");
      expect(text(after)).toContain(CARD_ACTIONS.ack);
      expect(await new AckStore(n.db).get("C1", target.uid)).toBeUndefined();

      // the next incident is broadcast again: nobody has it yet
      n.sim.control.setHealth(target.uid, "UnHealthy", "disk pressure");
      await n.cycle();
      const next = n.posts("C1").at(-1)!;
      expect(next.thread_ts).toBe(card.ts);
      expect(String(next.reply_broadcast)).toBe("true");
    });

    it("a second person is told privately who has it; the card is not touched", async () => {
      const { n, bot, card, elements, target } = await setup();
      const updatesBefore = n.fake.callsTo("chat.update").length;
      const postsBefore = n.fake.callsTo("chat.postMessage").length;
      await click(bot, card, ackButton(elements), ONCALL);
      await n.fake.waitFor("chat.update", updatesBefore + 1);
      await n.fake.waitFor("chat.postMessage", postsBefore + 1);
      const updates = n.fake.callsTo("chat.update").length;
      const posts = n.fake.callsTo("chat.postMessage").length;

      const second = await click(bot, card, ackButton(elements), SECOND);
      const [answer] = await bot.responses(second.responseId);
      expect(answer!.body).toMatchObject({ response_type: "ephemeral", replace_original: false });
      expect(text(answer!)).toContain(`Already acknowledged by <@${ONCALL}>`);
      expect(checkSlackLimits(answer!.body.blocks as never)).toEqual([]);
      expect(n.fake.callsTo("chat.update")).toHaveLength(updates);
      expect(n.fake.callsTo("chat.postMessage")).toHaveLength(posts);
      expect((await new AckStore(n.db).get("C1", target.uid))?.userId).toBe(ONCALL);
    });

    it("a user outside ALLOW_ACK gets a private refusal saying what to do, and nothing changes", async () => {
      const { n, bot, card, elements, target } = await setup();
      const updates = n.fake.callsTo("chat.update").length;
      const posts = n.fake.callsTo("chat.postMessage").length;
      const { status, responseId } = await click(bot, card, ackButton(elements), OUTSIDER);
      expect(status).toBe(200);
      const [answer] = await bot.responses(responseId);
      expect(answer!.body).toMatchObject({ response_type: "ephemeral", replace_original: false });
      expect(text(answer!)).toContain("ALLOW_ACK");
      expect(checkSlackLimits(answer!.body.blocks as never)).toEqual([]);
      expect(n.fake.callsTo("chat.update")).toHaveLength(updates);
      expect(n.fake.callsTo("chat.postMessage")).toHaveLength(posts);
      expect(await new AckStore(n.db).get("C1", target.uid)).toBeUndefined();
      expect((await bot.audit.recent())[0]).toMatchObject({
        userId: OUTSIDER,
        action: "ack",
        outcome: "denied",
      });
    });
  });

  describe("Nodes on a notification card", () => {
    it("answers with the cluster's node table through the response_url", async () => {
      const { bot, card, elements, target } = await setup();
      const nodes = elements.find(
        (element) =>
          element.action_id?.startsWith(RUN_COMMAND_ACTION) && element.value?.startsWith("nodes "),
      )!;
      expect(nodes.value).toContain(target.uid);
      const { status, responseId } = await click(bot, card, nodes, ONCALL);
      expect(status).toBe(200);
      const [answer] = await bot.responses(responseId, 1, 10_000);
      expect(answer!.body.replace_original).toBe(false);
      expect(text(answer!)).toContain(`Nodes of ${target.name}`);
      expect(text(answer!)).toMatch(/machine pool/);
      expect(checkSlackLimits(answer!.body.blocks as never)).toEqual([]);
    });
  });
});
