import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimulator } from "../src/simulator/server.ts";
import { startFakeSlack } from "../test/support/fake-slack.ts";
import { signedRequest, slashCommandBody } from "../test/support/slack-request.ts";
import { SIGNING_SECRET, startBotProcess } from "./ack.ts";
import { buildBot } from "./compiled-bot.ts";
import { percentiles } from "./percentiles.ts";

/**
 * `/palette why` over a cluster with a long story: AUDITS audit entries and EVENTS events in the
 * last 24 hours (and older ones the range leaves out), the bot as the image runs it (its own
 * process, compiled, NODE_ENV production), the simulator enforcing Palette's rate limits and a
 * fake Slack in this process. One person asks `why` RUNS times in a row; per answer: the time from
 * the signed slash command to the answer at the response_url, and the Palette calls it made
 * (audit pages, event pages, the name search), read from the simulator's request log.
 */

export interface WhyBenchOptions {
  audits?: number;
  events?: number;
  runs?: number;
}

export async function runWhyBench(options: WhyBenchOptions = {}) {
  const audits = options.audits ?? 500;
  const events = options.events ?? 500;
  const runs = options.runs ?? 30;
  const script = buildBot();
  const sim = await startSimulator({ clusters: 40, seed: 27, enforceRateLimits: true });
  const project = sim.control.projects()[0]!;
  const cluster = sim.control.addCluster({
    name: "why-bench",
    projectUid: project,
    provider: "aws",
    pools: [
      { name: "cp-pool", size: 1, isControlPlane: true, instanceType: "m5.large" },
      { name: "worker-pool", size: 3, isControlPlane: false, instanceType: "m5.xlarge" },
    ],
  });
  const now = Date.now();
  const actors = ["editor@example.com", "viewer@example.com", undefined];
  for (let i = 0; i < audits; i++) {
    const email = actors[i % actors.length];
    sim.control.addAudit({
      clusterUid: cluster.uid,
      actionType: i % 5 === 0 ? "update" : "activity",
      actionMsg: `bench entry ${i}`,
      ...(email ? { email } : {}),
      // spread over the last 20 hours, inside the default 24 h range
      at: now - 60_000 - i * 144_000,
    });
  }
  // older entries the range must leave out (startTime/endTime do it server-side)
  for (let i = 0; i < 100; i++) {
    sim.control.addAudit({
      clusterUid: cluster.uid,
      actionType: "update",
      actionMsg: `old entry ${i}`,
      at: now - 3 * 24 * 3600_000 - i * 1000,
    });
  }
  for (let i = 0; i < events; i++) {
    sim.control.addEvent(cluster.uid, {
      reason: i % 10 === 0 ? "NodeNotReady" : "Reconciled",
      message: `bench event ${i}`,
      severity: i % 10 === 0 ? "Warning" : "Normal",
    });
  }
  sim.control.setHealth(cluster.uid, "UnHealthy", "kubelet stopped posting node status");
  const fake = await startFakeSlack();
  const dir = mkdtempSync(join(tmpdir(), "why-bench-"));
  const bot = await startBotProcess(
    script,
    { simUrl: sim.url, apiKey: sim.credentials.apiKey, fakeUrl: fake.url, fakeApiUrl: fake.apiUrl },
    dir,
    // the poll would add its own calls to the request log: once a year is never, here
    { PALETTE_PROJECTS: project, POLL_SCHEDULE: "0 0 1 1 *" },
  );
  const answerMs: number[] = [];
  const calls: Array<{ audits: number; events: number; other: number }> = [];
  let non200 = 0;
  let answered = 0;
  let sample = "";
  try {
    for (let run = 0; run < runs; run++) {
      fake.reset();
      sim.control.clearRequests();
      const body = slashCommandBody({
        text: "why why-bench",
        userId: "UBENCHWHY",
        channelId: "CBENCHWHY",
        responseUrl: `${fake.url}/response/why-${run}`,
        triggerId: `${run}.why.trigger`,
      });
      const request = signedRequest(SIGNING_SECRET, body);
      const started = Date.now();
      const response = await fetch(bot.url, { method: "POST", headers: request.headers, body });
      await response.arrayBuffer();
      if (response.status !== 200) non200++;
      const [reply] = await fake.waitFor("response", 1, 60_000);
      answerMs.push(reply!.at - started);
      const text = JSON.stringify(reply!.body);
      if (text.includes("Why: why-bench")) answered++;
      if (run === 0) sample = text;
      const log = sim.control.requests();
      const auditCalls = log.filter((r) => r.path === "/v1/audits").length;
      const eventCalls = log.filter((r) => r.path.startsWith("/v1/events/")).length;
      calls.push({
        audits: auditCalls,
        events: eventCalls,
        other: log.length - auditCalls - eventCalls,
      });
    }
    const first = calls[0] ?? { audits: 0, events: 0, other: 0 };
    return {
      auditEntriesInRange: audits,
      eventsInRange: events,
      runs,
      answered,
      non200,
      answer: percentiles(answerMs),
      paletteCallsPerAnswer: {
        audits: first.audits,
        events: first.events,
        other: first.other,
        total: first.audits + first.events + first.other,
        sameEveryRun: calls.every(
          (c) => c.audits === first.audits && c.events === first.events && c.other === first.other,
        ),
      },
      likelyCauseShown: sample.includes("Likely cause"),
      note: "ms from sending the signed /palette why to the answer at the response_url; one person, one at a time; 500 audit entries and 500 events in the default 24 h range (and 100 older audit entries it leaves out); bot compiled, NODE_ENV=production, its own process; the simulator enforces Palette's rate limits; 'other' is the name search",
      measuredAt: new Date().toISOString(),
    };
  } finally {
    await bot.close();
    await fake.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
