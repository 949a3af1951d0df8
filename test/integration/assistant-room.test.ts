import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { allowAll } from "../../src/access/types.ts";
import { buildAssistant } from "../../src/app/assistant.ts";
import { createAssistant } from "../../src/assistant/ask.ts";
import { assistantModel } from "../../src/assistant/provider.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { dispatch } from "../../src/registry/dispatch.ts";
import {
  type RunningScriptedModel,
  startScriptedModel,
} from "../../src/simulator/scripted-model.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { FleetCluster, RunningSimulator } from "../../src/simulator/types.ts";
import { AssistantTurnStore } from "../../src/store/assistant-turns.ts";
import { scriptedAssistantConfig } from "../support/assistant-config.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { readFixtureJson } from "../support/fixtures.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * The assistant's room (issue 36 item 7): its answers run at most ASSISTANT_MAX_CONCURRENT at
 * once, take none of the commands' slots (a question handed off from a verb included), and a
 * shutdown waits for the answers still being worked out. Signed Events API deliveries to the real
 * bot, the scripted model over HTTP with a delay, the Palette simulator.
 */

let sim: RunningSimulator;
let palette: PaletteClient;
let model: RunningScriptedModel;
let fake: FakeSlack;
let web: FleetCluster;
let sequence = 0;

type Envelope = { event: Record<string, unknown>; event_id: string } & Record<string, unknown>;

async function bot(options: { maxConcurrent: number; commands: number }) {
  return startBot({
    palette,
    fake,
    policy: allowAll,
    projects: sim.control.projects(),
    maxConcurrentCommands: options.commands,
    assistant: (deps) => {
      const settings = scriptedAssistantConfig(model.baseUrl, {
        maxConcurrent: options.maxConcurrent,
      });
      return createAssistant({
        config: settings,
        model: assistantModel(settings),
        dispatch,
        commandDeps: deps,
        turns: new AssistantTurnStore(deps.db, deps.clock, 7 * 86_400_000),
      });
    },
  });
}

/** a signed `@Palette <text>` in a fresh channel; not waited on */
async function mention(h: BotHarness, text: string) {
  const base = readFixtureJson<{ payload: Envelope }>(
    "slack",
    "events",
    "app_mention.json",
  ).payload;
  const ts = `1763000${String(++sequence).padStart(3, "0")}.000100`;
  const channel = `CROOM${sequence}`;
  const response = await h.post(
    JSON.stringify({
      ...base,
      event_id: `EvRoom${sequence}`,
      event: { ...base.event, text: `<@UBOT> ${text}`, ts, channel, user: "W111" },
    }),
    { "content-type": "application/json" },
  );
  expect(response.status).toBe(200);
  return channel;
}

const answeredIn = (channel: string) =>
  fake.calls.filter(
    (call) =>
      call.body.channel === channel &&
      (call.method === "chat.postEphemeral" || call.method === "chat.postMessage"),
  );

/** resolves once `condition` holds, checked after each of the fake's and model's events */
async function until(condition: () => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** the question each model request was for (its first user message) */
const questionOf = (body: Record<string, unknown>) =>
  JSON.stringify((body.messages as Array<{ role: string }>).find((m) => m.role === "user"));

beforeAll(async () => {
  sim = await startSimulator({ clusters: 12, projects: 2, seed: 36 });
  palette = apiKeyClient(sim, { retries: 0 });
  model = await startScriptedModel();
  fake = await startFakeSlack();
  web = sim.control.clusters().filter((c) => c.state === "Running")[0]!;
});

afterAll(async () => {
  await fake?.close();
  await model?.close();
  await palette?.close();
  await sim?.close();
});

beforeEach(() => {
  model.setFault(undefined);
  model.setDelay(0);
});

describe("the assistant's room (issue 36 item 7)", () => {
  it("a question handed off from a verb holds no command slot while the model works", async () => {
    const h = await bot({ maxConcurrent: 4, commands: 1 });
    try {
      model.setDelay(1_500);
      const asked = model.requests.length;
      // a verb that runs, misses ("No cluster named …") and is handed to the assistant
      const question = await mention(h, "nodes ghost-prod-9");
      await until(() => model.requests.length > asked);
      const typed = await mention(h, `nodes ${web.name}`);
      // the one command slot is free: the typed read answers while the model is still thinking
      await h.settled(1, 20_000);
      expect(answeredIn(typed).length).toBeGreaterThan(0);
      expect(answeredIn(question)).toEqual([]);
      await h.settled(2, 20_000);
      expect(answeredIn(question).length).toBeGreaterThan(0);
    } finally {
      await h.close();
    }
  });

  it("ASSISTANT_MAX_CONCURRENT=1: one answer at a time, the next waits its turn", async () => {
    const h = await bot({ maxConcurrent: 1, commands: 8 });
    try {
      model.setDelay(200);
      const asked = model.requests.length;
      await mention(h, `what are the nodes of ${web.name}?`);
      await mention(h, "which clusters are unhealthy right now?");
      await h.settled(2, 30_000);
      const order = model.requests.slice(asked).map((request) => questionOf(request.body));
      expect(new Set(order).size).toBe(2);
      // each question's model steps run together: the second starts after the first has ended
      const switches = order.filter((q, i) => i > 0 && q !== order[i - 1]).length;
      expect(switches).toBe(1);
    } finally {
      await h.close();
    }
  });

  it("a shutdown waits for an answer still being worked out", async () => {
    const h = await bot({ maxConcurrent: 4, commands: 8 });
    model.setDelay(800);
    const asked = model.requests.length;
    const question = await mention(h, `what are the nodes of ${web.name}?`);
    await until(() => model.requests.length > asked);
    await h.bot.stop();
    // stop() returned: the answer was delivered before it did, not cut off
    expect(answeredIn(question).length).toBeGreaterThan(0);
    await h.close();
  });
});

describe("the hourly limit is the store's, not a replica's (issue 36 item 7)", () => {
  it("ASSISTANT_PER_USER_PER_HOUR=2 holds across two replicas on one store", async () => {
    const h = await bot({ maxConcurrent: 4, commands: 8 });
    try {
      const config = scriptedAssistantConfig(model.baseUrl, { perUserPerHour: 2 });
      // two replicas: each builds its assistant as the bot does, over the one shared store
      const deps = h.bot.edge.commandDeps;
      const replicas = [
        (await buildAssistant({ config, deps, dispatch }))!,
        (await buildAssistant({ config, deps, dispatch }))!,
      ];
      const ask = (replica: number, text: string) =>
        replicas[replica]!.ask(
          {
            text,
            requester: { userId: "WHOUR", channelId: "DHOUR" },
            conversation: `DHOUR:${text}`,
            surface: "dm",
          },
          { status: () => undefined },
        );
      expect((await ask(0, "which clusters are unhealthy right now?")).kind).not.toBe("limited");
      expect((await ask(1, `what are the nodes of ${web.name}?`)).kind).not.toBe("limited");
      const third = await ask(0, "and the alerts?");
      expect(third.kind).toBe("limited");
      expect(third.text).toContain("ASSISTANT_PER_USER_PER_HOUR");
      const fourth = await ask(1, "and the freezes?");
      expect(fourth.kind).toBe("limited");
      // another person has their own hour
      const other = await replicas[1]!.ask(
        {
          text: "which clusters are unhealthy right now?",
          requester: { userId: "WOTHER", channelId: "DOTHER" },
          conversation: "DOTHER:x",
          surface: "dm",
        },
        { status: () => undefined },
      );
      expect(other.kind).not.toBe("limited");
    } finally {
      await h.close();
    }
  });
});

describe("a follow-up's history is trimmed to fit the token budget (issue 36 item 7)", () => {
  it("six long earlier turns: the oldest are left out and the question is answered", async () => {
    const h = await bot({ maxConcurrent: 4, commands: 8 });
    try {
      const config = scriptedAssistantConfig(model.baseUrl);
      const deps = h.bot.edge.commandDeps;
      const assistant = (await buildAssistant({ config, deps, dispatch }))!;
      const turns = new AssistantTurnStore(deps.db, deps.clock, 7 * 86_400_000);
      // each turn near the stored cap: together far more than the 16,000-token budget
      for (let i = 0; i < 6; i++) {
        await turns.add({
          conversation: "DFIT:1",
          userId: "WFIT",
          question: `earlier question ${i} ${"about the fleet ".repeat(100)}`,
          answer: `earlier answer ${i} ${"all is well here ".repeat(450)}`,
          readText: `[clusters]\n${"web-prod-1 Running Healthy aws\n".repeat(250)}`,
        });
      }
      const before = model.requests.length;
      const answer = await assistant.ask(
        {
          text: `what are the nodes of ${web.name}?`,
          requester: { userId: "WFIT", channelId: "DFIT" },
          conversation: "DFIT:1",
          surface: "dm",
        },
        { status: () => undefined },
      );
      expect(answer.kind).toBe("answered");
      const sent = JSON.stringify(model.requests[before]!.body.messages);
      // the latest earlier turn is kept, the oldest left out
      expect(sent).toContain("earlier question 5");
      expect(sent).not.toContain("earlier question 0");
    } finally {
      await h.close();
    }
  });
});
