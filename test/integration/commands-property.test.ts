import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowAll } from "../../src/access/types.ts";
import { ManualClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { createPaletteClient, type PaletteClient } from "../../src/palette/client.ts";
import { dispatch, findVerb } from "../../src/registry/dispatch.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { parse, parseCommand } from "../../src/verb-kit/parse.ts";
import type { CommandContext, Reply } from "../../src/verb-kit/types.ts";
import { checkSlackLimits, LIMITS } from "../../src/views/limits.ts";
import { type RenderedReply, rendered } from "../support/reply-text.ts";

/**
 * Random and adversarial `/palette` texts through parse + dispatch against the real simulator
 * and the real client: nothing throws, every reply fits Slack, nothing pings, and every button
 * replays a command the parser accepts.
 */

let sim: RunningSimulator;
let client: PaletteClient;
let ctx: CommandContext;
let names: string[] = [];
let uids: string[] = [];
let projects: string[] = [];

beforeAll(async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  sim = await startSimulator({ clusters: 12, projects: 2, seed: 7, clock });
  projects = sim.control.projects();
  const fleet = sim.control.clusters();
  // a hostile name and a duplicate name, so escaping and the chooser are exercised
  fleet.push(
    sim.control.addCluster({ name: "<!channel>", projectUid: projects[0]!, provider: "aws" }),
  );
  fleet.push(
    sim.control.addCluster({ name: fleet[0]!.name, projectUid: projects[1]!, provider: "gcp" }),
  );
  names = fleet.map((cluster) => cluster.name);
  uids = fleet.map((cluster) => cluster.uid);
  client = createPaletteClient({
    baseUrl: sim.url,
    credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
    logger: silentLogger,
    clock,
    // the simulator does not enforce limits here; pacing would only slow 10,000 runs down
    rateLimit: false,
    retries: 0,
  });
  const db = await openSqlite(":memory:");
  ctx = {
    palette: client,
    db,
    audit: new AuditLog(db, clock),
    policy: allowAll,
    clock,
    logger: silentLogger,
    projects: [],
    consoleUrl: "https://console.example.com/",
    requester: { userId: "U1", channelId: "C1" },
  };
});

afterAll(async () => {
  await client?.close();
  await sim?.close();
});

const VERB_WORDS = [
  "help",
  "clusters",
  "cluster",
  "nodes",
  "workloads",
  "kubeconfig",
  "alerts",
  "clustrs",
  "CLUSTER",
  "ls",
];
const ADVERSARIAL = [
  "",
  " ",
  "a".repeat(4000),
  `clusters ${"x ".repeat(1999)}`,
  "project:",
  "clusters project:",
  "cluster project: --share",
  "tag:",
  "<!channel>",
  "cluster <!channel>",
  'cluster "<!channel>"',
  "cluster <@U123> <#C1|x> <https://evil|click>",
  'cluster "unbalanced',
  "cluster 'unbalanced",
  "workloads \"a 'b",
  "clusters\u0000",
  "clusters \u001b[31mred",
  "\u202ecluster",
  "cluster 🚀🔥 ☸️",
  "cluster \ud800",
  "nodes --",
  "-- --share",
  "--share",
  "clusters --page=",
  "clusters --page=999999",
  "clusters --page=%%%",
  "help help help",
  "cluster &amp; &lt;",
  "kubeconfig ../../etc/passwd",
  "workloads x UPPER",
];

const word = fc.oneof(
  fc.constantFrom(...VERB_WORDS),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "grapheme", maxLength: 8 }),
  fc.constantFrom("<!channel>", "<!here>", "&", "*bold*", "`", "_", "~", "|", ">", "\\"),
);
const option = fc.oneof(
  fc.constant("project:"),
  fc.constantFrom(...(["p"] as const)).map(() => `project:${projects[0] ?? "x"}`),
  fc.string({ maxLength: 10 }).map((value) => `project:${value}`),
  fc.string({ maxLength: 10 }).map((value) => `tag:${value}`),
  fc.constantFrom("--share", "--page=1", "--foo", "--", "tag:env", "tag:team:core"),
);
const clusterRef = fc.oneof(
  fc.constant(0).map(() => names[0] ?? "x"),
  fc.nat().map((index) => names[index % Math.max(1, names.length)] ?? "x"),
  fc.nat().map((index) => uids[index % Math.max(1, uids.length)] ?? "x"),
  fc.constant("no-such-cluster"),
);
const quoteWrap = (value: string) =>
  fc.constantFrom(value, `"${value}"`, `'${value}`, `“${value}”`);

const structured = fc
  .tuple(
    fc.constantFrom("cluster", "nodes", "workloads", "kubeconfig", "alerts", "clusters", "help"),
    fc.array(
      fc.oneof(
        clusterRef.chain(quoteWrap),
        option,
        word,
        fc.constantFrom("default", "kube-system"),
      ),
      {
        maxLength: 4,
      },
    ),
  )
  .map(([verb, rest]) => [verb, ...rest].join(" "));

const texts = fc.oneof(
  { arbitrary: fc.string({ maxLength: 60 }), weight: 40 },
  { arbitrary: fc.string({ unit: "binary", maxLength: 60 }), weight: 20 },
  { arbitrary: fc.array(word, { maxLength: 6 }).map((words) => words.join(" ")), weight: 20 },
  { arbitrary: fc.constantFrom(...ADVERSARIAL), weight: 5 },
  { arbitrary: structured, weight: 15 },
);

function messageOf(reply: Reply): RenderedReply | undefined {
  if (reply.kind === "message") return rendered(reply);
  if (reply.kind === "file") return rendered(reply.notice);
  return undefined;
}

function assertFits(text: string, reply: Reply): void {
  const message = messageOf(reply);
  if (!message) return;
  const problems = checkSlackLimits(message.blocks);
  if (problems.length > 0) throw new Error(`${JSON.stringify(text)} → ${problems.join("; ")}`);
  expect(message.text.length).toBeLessThanOrEqual(LIMITS.fallbackText);
  expect(message.text).not.toMatch(/<[!@#]/);
  if (message.visibility === "in_channel") {
    const command = parse(text);
    expect(["cluster", "clusters"]).toContain(command.verb);
    expect(command.flags.has("share")).toBe(true);
  }
  if (reply.kind === "file") expect(reply.notice.visibility).toBe("ephemeral");
  // every button replays a command the parser accepts and the dispatcher knows
  for (const block of message.blocks) {
    if (block.type !== "actions") continue;
    for (const element of block.elements) {
      if (element.type !== "button" || element.value === undefined) continue;
      const replay = parseCommand(element.value);
      expect(replay.problems).toEqual([]);
      expect(findVerb(replay.command.verb)).toBeDefined();
    }
  }
}

describe("commands against the simulator (property)", () => {
  it("never throws and always fits Slack, for 10,000 texts", async () => {
    const started = performance.now();
    let apiCommands = 0;
    let rich = 0;
    const internalErrors: string[] = [];
    await fc.assert(
      fc.asyncProperty(texts, async (text) => {
        const before = sim.control.requests().length;
        const reply = await dispatch(text, ctx);
        if (sim.control.requests().length > before) apiCommands++;
        assertFits(text, reply);
        const fallback = messageOf(reply)?.text ?? "";
        // our bugs and client/simulator disagreements show up as these two answers
        if (/Something went wrong|shape the bot does not understand/.test(fallback)) {
          internalErrors.push(text);
        }
        if (reply.kind === "file" || messageOf(reply)?.blocks[0]?.type === "header") rich++;
      }),
      { numRuns: 10_000, seed: 20260101 },
    );
    const seconds = (performance.now() - started) / 1000;
    // printed so the report can quote it
    console.log(
      `commands-property: 10000 texts in ${seconds.toFixed(1)} s, ${apiCommands} reached the simulator, ${rich} full answers`,
    );
    expect(internalErrors.slice(0, 5)).toEqual([]);
    expect(apiCommands).toBeGreaterThan(300);
    expect(rich).toBeGreaterThan(300);
  });

  it("answers every adversarial text", async () => {
    for (const text of ADVERSARIAL) {
      const reply = await dispatch(text, ctx);
      assertFits(text, reply);
      const message = messageOf(reply);
      expect(message?.blocks.length ?? 1).toBeGreaterThan(0);
    }
  });

  it("shows a duplicate name as a choice and a hostile name escaped", async () => {
    const duplicate = await dispatch(`cluster ${names[0]}`, ctx);
    expect(JSON.stringify(messageOf(duplicate)?.blocks)).toContain("Pick one");
    const hostile = await dispatch(`cluster "<!channel>" project:${projects[0]}`, ctx);
    const mrkdwn: string[] = [];
    JSON.stringify(messageOf(hostile)?.blocks, (_key, value: unknown) => {
      const object = value as { type?: unknown; text?: unknown };
      if (object?.type === "mrkdwn" && typeof object.text === "string") mrkdwn.push(object.text);
      return value;
    });
    // plain_text (the header) never expands mentions; every mrkdwn text must be escaped
    expect(mrkdwn.join("\n")).toContain("&lt;!channel&gt;");
    expect(mrkdwn.join("\n")).not.toContain("<!channel>");
  });
});
