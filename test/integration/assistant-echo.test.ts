import { simulateReadableStream } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowAll } from "../../src/access/types.ts";
import { type Assistant, createAssistant } from "../../src/assistant/ask.ts";
import { KnownNames } from "../../src/assistant/ground.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { dispatch } from "../../src/registry/dispatch.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { FleetCluster, RunningSimulator } from "../../src/simulator/types.ts";
import { AssistantTurnStore } from "../../src/store/assistant-turns.ts";
import { scriptedAssistantConfig } from "../support/assistant-config.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * Issue 36 review findings: what a model can make of a read's own arguments and of an earlier
 * turn's text. The real createAssistant reads the simulator through the real dispatcher; the model
 * is the AI SDK's mock, scripted step by step, so a test can make it say exactly the words a
 * careless or steered model would.
 */

type Part = Record<string, unknown>;
let sim: RunningSimulator;
let palette: PaletteClient;
let fake: FakeSlack;
let h: BotHarness;
let assistant: Assistant;
let web: FleetCluster;
let script: Part[][] = [];
let step = 0;

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 10, text: 10, reasoning: 0 },
};
let callId = 0;
const toolStep = (name: string, input: unknown): Part[] => [
  { type: "stream-start", warnings: [] },
  {
    type: "tool-call",
    toolCallId: `call${++callId}`,
    toolName: name,
    input: JSON.stringify(input),
  },
  { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
];
const textStep = (text: string): Part[] => [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: text },
  { type: "text-end", id: "t" },
  { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
];
/** every prompt the model was sent, as JSON: what reached it */
const prompts: string[] = [];
const model = new MockLanguageModelV3({
  doStream: async (options: { prompt: unknown }) => {
    prompts.push(JSON.stringify(options.prompt));
    const parts = script[step++] ?? textStep("Nothing more.");
    return { stream: simulateReadableStream({ chunks: parts as never[] }) } as never;
  },
});

beforeAll(async () => {
  sim = await startSimulator({ clusters: 30, projects: 1, seed: 36 });
  palette = apiKeyClient(sim, { retries: 0 });
  fake = await startFakeSlack();
  const all = sim.control.clusters();
  web = all.find(
    (c) => c.state === "Running" && all.filter((other) => other.name === c.name).length === 1,
  )!;
  h = await startBot({
    palette,
    fake,
    policy: allowAll,
    projects: sim.control.projects(),
    assistant: (deps) => {
      // the base URL is never called: the mock model answers in process
      const settings = scriptedAssistantConfig("http://127.0.0.1:1/v1", { perUserPerHour: 1_000 });
      assistant = createAssistant({
        config: settings,
        model,
        dispatch,
        commandDeps: deps,
        turns: new AssistantTurnStore(deps.db, deps.clock, 7 * 86_400_000),
        knownNames: async () => new KnownNames(sim.control.clusters().map((c) => c.name)),
      });
      return assistant;
    },
  });
});

afterAll(async () => {
  await h?.close();
  await fake?.close();
  await palette?.close();
  await sim?.close();
});

const requester = { userId: "W111", channelId: "D1", teamId: "T1" };
let conversations = 0;

async function run(text: string, steps: Part[][], conversation = `D1:echo${++conversations}`) {
  script = steps;
  step = 0;
  return assistant.ask(
    { text, requester, conversation, surface: "dm" },
    { status: () => undefined, progress: () => undefined },
  );
}

describe("a read's own arguments ground nothing (review of issue 36, blocker)", () => {
  const invented = "`ghost-prod-9` is down: 3 of its nodes are NotReady.\n";

  it("a list read's tags, asked for by the model, do not ground the name they spell", async () => {
    const answer = await run("is ghost-prod-9 ok?", [
      toolStep("list_clusters", { tags: ["ghost-prod-9"] }),
      textStep(invented),
    ]);
    expect(answer.kind).toBe("ungrounded");
    expect(answer.text).not.toContain("ghost-prod-9");
  });

  it("nor does a risks read's tag, a list's project or a workloads read's namespace", async () => {
    for (const [tool, input] of [
      ["risks", { tags: ["ghost-prod-9"] }],
      ["list_clusters", { project: "ghost-prod-9" }],
      ["workloads", { cluster: web.name, namespace: "ghost-prod-9" }],
    ] as const) {
      const answer = await run("is ghost-prod-9 ok?", [toolStep(tool, input), textStep(invented)]);
      expect({ tool, kind: answer.kind }).toEqual({ tool, kind: "ungrounded" });
    }
  });

  it("what a read returned still grounds its answer", async () => {
    const answer = await run(`nodes of ${web.name}?`, [
      toolStep("nodes", { cluster: web.name }),
      textStep(`\`${web.name}\` (\`${web.uid}\`) has its nodes listed above.\n`),
    ]);
    expect(answer.kind).toBe("answered");
  });
});

describe("a claim of a change made is refused, however it is worded (review of issue 36)", () => {
  it("refuses past-tense change verbs near the cluster, curly apostrophes and all", async () => {
    for (const claim of [
      `I’ve scaled \`${web.name}\` to 5 nodes.`,
      `Scaled \`${web.name}\` to 5 nodes for you.`,
      `\`${web.name}\` is now scaled to 5 nodes.`,
      `I went ahead and deleted \`${web.name}\`.`,
      `✅ \`${web.name}\` scaled to 5.`,
      `I’ve backed up \`${web.name}\` and restarted it.`,
    ]) {
      const answer = await run(`nodes of ${web.name}?`, [
        toolStep("nodes", { cluster: web.name }),
        textStep(`${claim}\n`),
      ]);
      expect({ claim, kind: answer.kind }).toEqual({ claim, kind: "ungrounded" });
      expect(answer.text).toContain("it said a change was made");
    }
  });

  it("a read's own past-tense line, quoted, is not a claim", async () => {
    const answer = await run(`nodes of ${web.name}?`, [
      toolStep("nodes", { cluster: web.name }),
      textStep(
        `\`${web.name}\` has its nodes listed above.\n> \`${web.name}\` was scaled to 3 by its autoscaler\nYou can scale \`${web.name}\` with the typed command.\n`,
      ),
    ]);
    expect(answer.kind).toBe("answered");
  });
});

describe("a follow-up is grounded by earlier reads' data, not their text (review of issue 36)", () => {
  it("an earlier read's command and empty notice ground nothing in the next turn", async () => {
    const conversation = "D1:follow-up-echo";
    const first = await run(
      "list the clusters tagged ghost-prod-9",
      [
        toolStep("list_clusters", { tags: ["ghost-prod-9"] }),
        textStep("No cluster carries that tag.\n"),
      ],
      conversation,
    );
    expect(first.kind).toBe("answered");
    const followUp = await run(
      "and is it healthy?",
      [textStep("`ghost-prod-9` is down: 3 of its nodes are NotReady.\n")],
      conversation,
    );
    expect(followUp.kind).toBe("ungrounded");
  });

  it("an earlier read's data still grounds the follow-up", async () => {
    const conversation = "D1:follow-up-data";
    const first = await run(
      `nodes of ${web.name}?`,
      [toolStep("nodes", { cluster: web.name }), textStep(`\`${web.name}\` has nodes.\n`)],
      conversation,
    );
    expect(first.kind).toBe("answered");
    const followUp = await run(
      "and its UID?",
      [textStep(`\`${web.name}\` is \`${web.uid}\`.\n`)],
      conversation,
    );
    expect(followUp.kind).toBe("answered");
  });
});

describe("a proposal rests on the asker's own request (review of issue 36)", () => {
  const others = () =>
    sim.control.clusters().filter((c) => c.state === "Running" && c.name !== web.name);

  it("a question about a past change offers no change, nor one for a listed cluster", async () => {
    const other = others()[0]!;
    const answer = await run(`why was ${web.name} scaled down yesterday?`, [
      toolStep("why", { cluster: web.name }),
      toolStep("list_clusters", {}),
      toolStep("propose_change", { verb: "scale", cluster: other.name, args: ["0"] }),
      toolStep("propose_change", { verb: "scale", cluster: web.name, args: ["0"] }),
      // the cluster read on its own, no number: only "the person asked for no change" stands
      toolStep("propose_change", { verb: "scale", cluster: web.name }),
      textStep(`\`${web.name}\` was scaled by its autoscaler.\n`),
    ]);
    expect(answer.proposals).toEqual([]);
  });

  it("an imperative request offers its own cluster, pinned by UID, with no number it did not say", async () => {
    const other = others()[0]!;
    const answer = await run(`please scale ${web.name} pool worker-pool to 3`, [
      toolStep("list_clusters", {}),
      // a cluster the list returned but the person never named
      toolStep("propose_change", {
        verb: "scale",
        cluster: other.name,
        args: ["worker-pool", "3"],
      }),
      // a number the person never said
      toolStep("propose_change", { verb: "scale", cluster: web.name, args: ["worker-pool", "0"] }),
      toolStep("propose_change", {
        verb: "scale",
        cluster: web.name,
        args: ["worker-pool", "3"],
        project: "ffffffffffffffffffffffff",
      }),
      textStep(`The button below opens the confirmation for \`${web.name}\`.\n`),
    ]);
    expect(answer.proposals.map((p) => p.command)).toEqual([`scale ${web.uid} worker-pool 3`]);
  });
});

describe("secrets in Palette's texts never reach the model (review of issue 36, note 10)", () => {
  it("token-shaped strings in an event message are taken out of the read the model sees", async () => {
    const secrets = [
      // assembled at run time: no token-shaped literal in the repository for a secret scanner to flag
      `${"xox"}b-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx`,
      "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib3QifQ.c2lnbmF0dXJlLXRoYXQtaXMtbG9uZw",
      "client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlFcEFJQkFBS0NBUUVB",
      "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    ];
    sim.control.addEvent(web.uid, {
      reason: "Notice",
      message: `debug dump ${secrets.join(" ")} end`,
      severity: "Warning",
    });
    prompts.length = 0;
    const answer = await run(`what happened to ${web.name}?`, [
      toolStep("why", { cluster: web.name, since: "1d" }),
      textStep(`\`${web.name}\` has a notice.\n`),
    ]);
    expect(answer.kind).toBe("answered");
    const seen = prompts.join("\n");
    expect(seen).toContain("debug dump");
    for (const secret of secrets) {
      const tail = secret.split(/[ :]+/).at(-1)!;
      expect({ secret, leaked: seen.includes(tail) }).toEqual({ secret, leaked: false });
    }
  });
});
