import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MadeChange, scoreChaos } from "../../bench/chaos/score.ts";
import { installSlackWindows, type SlackChaos } from "../../bench/chaos/slack-windows.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";
import { postSigned, slashCommandBody } from "../support/slack-request.ts";
import {
  type CliProcess,
  freePort,
  logged,
  spawnCli,
  until,
} from "../support/start-process-harness.ts";

/**
 * Issue 12, a paused leader (SIGSTOP: a long GC pause, a frozen VM) at process level: while it
 * sleeps past its lease the other replica takes over and announces what changed; woken (SIGCONT),
 * the old leader's timers fire before it learns it was deposed, and whatever it tries to write is
 * refused. What a person sees: every change once, none twice. The mechanism (the fence on every
 * singleton's write) is unit-tested in test/unit/store/postgres/fencing.test.ts; this is the proof
 * that the wired processes use it.
 */

const TTL_MS = 3_000;

/**
 * A pass-through to the simulator that can hold requests: the paused leader is caught in the
 * middle of a poll, and its held read is answered only after the change made while it sleeps
 * (the answer waits in its socket until SIGCONT). Woken, it has that change in hand and a commit
 * to make: the commit the fence must refuse.
 */
const POLL_LISTING = "/v1/dashboard/spectroclusters/search";

async function startHoldingProxy(target: string) {
  let holding = false;
  const held: Array<() => void> = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    // only the poll's listing is held: the radar reads beside the poll, and a held radar read
    // would leave the poll nothing to commit when A wakes (the radar's own write is fenced too)
    const pollRead = req.method === "POST" && req.url?.startsWith(POLL_LISTING) === true;
    if (holding && pollRead) await new Promise<void>((resolve) => held.push(resolve));
    try {
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(
          (entry): entry is [string, string] =>
            typeof entry[1] === "string" &&
            !["host", "connection", "content-length"].includes(entry[0]),
        ),
      );
      const upstream = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      });
      const body = Buffer.from(await upstream.arrayBuffer());
      res.writeHead(upstream.status, {
        "content-type": upstream.headers.get("content-type") ?? "application/json",
      });
      res.end(body);
    } catch {
      res.writeHead(502).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hold() {
      holding = true;
    },
    heldCount: () => held.length,
    release() {
      holding = false;
      for (const resume of held.splice(0)) resume();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
const CHANNEL = "C0PAUSED";

describe("a leader paused past its lease (SIGSTOP, SIGCONT)", () => {
  let sim: RunningSimulator;
  let fake: FakeSlack;
  let slack: SlackChaos;
  let databaseUrl: string;
  let proxy: Awaited<ReturnType<typeof startHoldingProxy>>;
  const procs: CliProcess[] = [];
  const signingSecret = randomBytes(16).toString("hex");

  beforeAll(async () => {
    databaseUrl = (await freshDatabase()).url;
    sim = await startSimulator({
      clusters: 12,
      projects: 1,
      seed: 21,
      credentials: { password: `pw-${randomBytes(8).toString("hex")}` },
    });
    for (const cluster of sim.control.clusters()) {
      sim.control.setState(cluster.uid, "Running");
      sim.control.setHealth(cluster.uid, "Healthy");
    }
    proxy = await startHoldingProxy(sim.url);
    fake = await startFakeSlack();
    slack = installSlackWindows(fake, []);
  }, POSTGRES_SETUP_TIMEOUT_MS);

  afterAll(async () => {
    for (const proc of procs) {
      proc.child.kill("SIGCONT");
      await proc.kill();
    }
    proxy?.release();
    await proxy?.close();
    await fake?.close();
    await sim?.close();
  });

  const start = async (paletteUrl: string) => {
    const port = await freePort();
    const proc = spawnCli(["start"], {
      SLACK_BOT_TOKEN: `xoxb-paused-${randomBytes(8).toString("hex")}`,
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_API_URL: fake.apiUrl,
      PALETTE_API_URL: paletteUrl,
      PALETTE_EMAIL: sim.credentials.email,
      PALETTE_ORG: sim.credentials.org,
      PALETTE_PASSWORD: sim.credentials.password,
      PALETTE_PROJECTS: sim.control.projects().join(","),
      PORT: String(port),
      DATABASE_URL: databaseUrl,
      POLL_SCHEDULE: "* * * * * *",
      LEADER_LEASE_TTL_MS: String(TTL_MS),
      LEADER_RENEW_MS: "1000",
      LOG_LEVEL: "info",
    });
    procs.push(proc);
    const url = `http://127.0.0.1:${port}`;
    const role = async () => {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1_000) });
      return ((await response.json()) as { leader?: { role: string } }).leader?.role;
    };
    await until("/readyz with a leader report", role, 30_000);
    return { proc, url, role };
  };
  const committedAfter = (proc: CliProcess, after: number) =>
    logged(proc, "poll cycle committed").filter((line) => Date.parse(String(line.time)) > after);

  it("the other replica takes over; woken, the old leader commits nothing and nothing is sent twice", async () => {
    const a = await start(proxy.url);
    await until("A leads", async () => (await a.role()) === "leader", 15_000);
    const b = await start(sim.url);
    expect(await b.role()).toBe("follower");

    await postSigned(
      `${b.url}/slack/events`,
      signingSecret,
      slashCommandBody({
        text: "subscribe clusters",
        channelId: CHANNEL,
        responseUrl: `${fake.url}/response/sub`,
      }),
    );
    const answer = await until("the subscribe answer", () =>
      fake.callsTo("response").find((call) => call.body._responseId === "sub"),
    );
    expect(JSON.stringify(answer.body)).toContain("Subscribed");
    // A polls with the subscription in place before it is paused
    const subscribedAt = Date.now();
    await until("A's poll after the subscription", () => committedAfter(a.proc, subscribedAt)[0]);

    const [first, second] = sim.control.clusters();
    const made: MadeChange[] = [];
    const change = (cluster: typeof first, to: string) => {
      sim.control.setState(cluster!.uid, to);
      made.push({
        at: Date.now(),
        cluster: cluster!.name,
        project: cluster!.projectUid,
        field: "state",
        to,
      });
    };
    const announced = (cluster: typeof first, to: string) =>
      slack.delivered.find(
        (message) => message.text.includes(cluster!.name) && message.text.includes(`→ ${to}`),
      );

    // caught mid-poll: one of A's reads of Palette is held, then A is paused
    proxy.hold();
    await until("a read of A's poll held", () => proxy.heldCount() > 0);
    a.proc.child.kill("SIGSTOP");
    change(first, "Upgrading");
    proxy.release();
    await until("B leads", async () => (await b.role()) === "leader", 3 * TTL_MS);
    await until("B announces the change made during the pause", () =>
      announced(first, "Upgrading"),
    );
    // asleep well past its lease, with a poll's timer due many times over
    await new Promise((resolve) => setTimeout(resolve, 1_000));

    const resumedAt = Date.now();
    a.proc.child.kill("SIGCONT");
    const deposed = await until("A learns it was deposed", () =>
      logged(a.proc, "leader lease lost: the poll and sender stop here").find(
        (line) => Date.parse(String(line.time)) >= resumedAt,
      ),
    );
    expect(deposed.reason).not.toBe("stopped");
    await until("A reports itself a follower", async () => (await a.role()) === "follower");
    expect(await b.role()).toBe("leader");

    change(second, "Upgrading");
    await until("B announces a change made after A woke", () => announced(second, "Upgrading"));
    // two more poll rounds: room for a late duplicate from either replica
    await new Promise((resolve) => setTimeout(resolve, 2_500));

    // the round A was in when paused tried to commit what it read, and the fence refused it
    const refused = logged(a.proc, "poll cycle failed; nothing committed, next cycle retries")
      .filter((line) => Date.parse(String(line.time)) >= resumedAt)
      .map((line) => String(line.err));
    expect(refused, a.proc.output().slice(-3000)).toContainEqual(
      expect.stringMatching(/the write is refused/),
    );
    expect(committedAfter(a.proc, resumedAt)).toEqual([]);
    const score = scoreChaos({
      changes: made,
      delivered: slack.delivered,
      channels: new Map([[CHANNEL, first!.projectUid]]),
    });
    expect(score, JSON.stringify(slack.delivered, null, 1)).toMatchObject({
      expected: 2,
      announced: 2,
      lost: 0,
      duplicated: 0,
      falseAnnouncements: 0,
    });
    expect(a.proc.stderr()).not.toMatch(/uncaught|unhandled/i);
  }, 90_000);
});
