import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { providerSpec } from "../../src/palette/providers/index.ts";
import { PROVIDERS, type Provider } from "../../src/palette/providers-list.ts";
import { SAMPLE_ANSWERS } from "../support/launch-answers.ts";
import {
  type LaunchHarness,
  PENDING_MS,
  PROVISIONING_MS,
  startLaunchHarness,
  stateFor,
} from "../support/launch-harness.ts";

/**
 * Every provider, end to end: `/palette launch` opens the modal, the provider change rebuilds
 * it (views.update with the hash), look-ups come from the simulator through block_suggestion,
 * the signed view_submission creates the cluster in the simulator, and the card is edited in
 * place through Pending → Provisioning → Running.
 */
describe("launch on every provider", () => {
  let h: LaunchHarness;
  beforeAll(async () => {
    h = await startLaunchHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  async function fillLookups(provider: Provider, view: Parameters<LaunchHarness["suggest"]>[0]) {
    const answers: Record<string, string | string[] | undefined> = {
      ...(SAMPLE_ANSWERS[provider] as Record<string, string | string[] | undefined>),
      name: `chat-${provider}`,
    };
    const labels: Record<string, string> = {};
    for (const field of providerSpec(provider).fields) {
      if (!field.source) continue;
      const base = stateFor(provider, h.project, {});
      if (field.source === "host_cluster") {
        // narrow host clusters to the group picked before
        base.clusterGroup = {
          clusterGroup: {
            type: "external_select",
            selected_option: {
              text: { type: "plain_text", text: "g" },
              value: String(answers.clusterGroup),
            },
          },
        };
      }
      const options = await h.suggest(view, field.id, "", base);
      const usable = options.filter((o) => !o.text.includes("(in use)"));
      if (field.kind === "multi_external") {
        if (field.optional) {
          answers[field.id] = undefined;
          continue;
        }
        expect(usable.length, `${provider} ${field.id} options`).toBeGreaterThan(0);
        answers[field.id] = [usable[0]!.value];
      } else {
        if (usable.length === 0 && field.optional) {
          answers[field.id] = undefined;
          continue;
        }
        expect(usable.length, `${provider} ${field.id} options`).toBeGreaterThan(0);
        answers[field.id] = usable[0]!.value;
      }
      labels[String(answers[field.id])] = usable[0]!.text;
    }
    return { answers, labels };
  }

  for (const provider of PROVIDERS) {
    it(`${provider}: modal → simulator → card Running`, async () => {
      const { view: step1 } = await h.openModal();
      expect(step1.callback_id).toBe("palette_launch");
      const step2 = await h.pickProvider(step1, provider);
      const blockIds = step2.blocks.map((b) => (b as { block_id?: string }).block_id);
      expect(blockIds).toContain("name");

      const { answers, labels } = await fillLookups(provider, step2);
      const answer = await h.submit(step2, stateFor(provider, h.project, answers, labels));
      expect(answer.status).toBe(200);
      expect(answer.body.response_action, JSON.stringify(answer.body)).toBeUndefined();

      const created = h.sim.control.clusters(h.project).find((c) => c.name === `chat-${provider}`);
      expect(created?.provider).toBe(provider);

      // the card: posted in the channel of the command, then edited in place
      const record = await h.waitForCard(`chat-${provider}`);
      const card = h.bot.fake
        .callsTo("chat.postMessage")
        .find(
          (c) =>
            c.body.channel === "C111" &&
            JSON.stringify(c.body.blocks ?? "").includes(`chat-${provider}`),
        );
      expect(card).toBeDefined();
      expect(JSON.stringify(card!.body.blocks)).toContain("Open in Palette");
      expect(record.channel).toBe("C111");
      const updatesBefore = h.bot.fake.callsTo("chat.update").length;

      h.clock.advance(PENDING_MS + 10);
      await h.launch.tracker.tick();
      h.clock.advance(PROVISIONING_MS + 10);
      await h.launch.tracker.tick();
      const updates = h.bot.fake.callsTo("chat.update").slice(updatesBefore);
      const mine = updates.filter((u) =>
        JSON.stringify(u.body.blocks).includes(`chat-${provider}`),
      );
      expect(mine.map((u) => u.body.channel)).toEqual(["C111", "C111"]);
      expect(mine.map((u) => u.body.ts)).toEqual([record.cardTs, record.cardTs]);
      expect(JSON.stringify(mine[0]!.body.blocks)).toContain("Provisioning");
      expect(JSON.stringify(mine[1]!.body.blocks)).toContain("Running");
      expect(JSON.stringify(mine[1]!.body.blocks)).toContain("<@W111>");
      // the edit notifies nobody, so the requester is mentioned in the card's thread too
      const thread = h.bot.fake
        .callsTo("chat.postMessage")
        .find((c) => c.body.thread_ts === mine[0]!.body.ts);
      expect(String(thread?.body.text)).toContain("<@W111>");
      // idle tick: nothing more to say
      expect(await h.launch.tracker.tick()).toBe(0);
    });
  }
});
