/**
 * The edge fleet inside the bot as the image runs it (issue 39): the compiled bot started as a
 * process against the simulator (10,000 clusters and 10,000 edge hosts over 3 projects, rate
 * limits enforced) and a fake Slack; a channel subscribed with a signed `/palette subscribe edge`;
 * a 200-host site added, then dark all at once (EDGE_UNHEALTHY_GRACE 0, so the count is the
 * poll's). Measures the bot process's RSS each second (steady: the median; peak: VmHWM; bars
 * 120/150 MB) and how many poll cycles pass until the site's one message reaches the channel
 * (bar: 2). Part of `npm run bench -- edge`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSimulator } from "../src/simulator/server.ts";
import { startFakeSlack } from "../test/support/fake-slack.ts";
import { sampleValue } from "../test/support/prometheus.ts";
import { postSigned, slashCommandBody } from "../test/support/slack-request.ts";
import { freePort, spawnCli, until } from "../test/support/start-process-harness.ts";
import { buildBot } from "./compiled-bot.ts";
import { imageNodeFlags, imageNodeOptions } from "./image-node-options.ts";
import { peakRssMb, rssMb } from "./process-memory.ts";

const SIGNING_SECRET = "edge-bench-signing-secret";
const SITE = "store-9999";
const SITE_HOSTS = 200;

export interface EdgeBotRun {
  clusters: number;
  edgeHosts: number;
  /** poll cycles completed after the outage until the site's message was posted (bar: 2) */
  outageToldInCycles: number;
  /** messages the subscribed channel got for the site (bar: 1) */
  outageMessages: number;
  botSteadyRssMb: number;
  botPeakRssMb: number;
  palette429s: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

export async function runEdgeBotBench(clusters = 10_000, edgeHosts = 10_000): Promise<EdgeBotRun> {
  const dir = mkdtempSync(join(tmpdir(), "edge-bot-"));
  const sim = await startSimulator({
    clusters,
    projects: 3,
    seed: 39,
    enforceRateLimits: true,
    edgeHosts,
    edgeFlapping: 0,
  });
  const fake = await startFakeSlack();
  const port = await freePort();
  const projects = sim.control.projects();
  const bot = spawnCli(
    ["start"],
    {
      SLACK_BOT_TOKEN: "xoxb-edge-bench",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      PALETTE_API_URL: sim.url,
      PALETTE_API_KEY: sim.credentials.apiKey,
      PALETTE_PROJECTS: projects.join(","),
      PORT: String(port),
      STATE_DB: join(dir, "edge.sqlite"),
      POLL_SCHEDULE: "*/15 * * * * *",
      EDGE_UNHEALTHY_GRACE: "0",
      LOG_LEVEL: "warn",
      NODE_ENV: "production",
      NODE_OPTIONS: imageNodeOptions(),
    },
    { script: buildBot(), nodeArgs: imageNodeFlags() },
  );
  const botUrl = `http://127.0.0.1:${port}`;
  const pollsDone = async () =>
    sampleValue(
      await (await fetch(`${botUrl}/metrics`)).text(),
      'palette_chatops_poll_duration_seconds_count{outcome="ok"}',
    ) ?? 0;
  const rss: number[] = [];
  const sampler = setInterval(() => rss.push(rssMb(bot.child.pid!)), 1_000);
  const siteMessages = () =>
    fake
      .callsTo("chat.postMessage")
      .filter((call) => call.body.channel === "C0EDGE" && String(call.body.text).includes(SITE));
  try {
    await until("the first poll", async () => (await pollsDone()) >= 1, 900_000);
    await postSigned(
      `${botUrl}/slack/events`,
      SIGNING_SECRET,
      slashCommandBody({
        text: "subscribe edge",
        channelId: "C0EDGE",
        responseUrl: `${fake.url}/response/edge-sub`,
      }),
    );
    sim.control.edge.addSite(SITE, projects[0]!, SITE_HOSTS);
    // a whole cycle reads the new site's hosts healthy before they go dark
    const learnt = (await pollsDone()) + 2;
    await until("the site learnt", async () => (await pollsDone()) >= learnt, 300_000);
    sim.control.edge.setSiteHealth(SITE, "unhealthy");
    const before = await pollsDone();
    await until("the site told", () => siteMessages().length >= 1 || undefined, 300_000);
    const toldAfter = (await pollsDone()) - before;
    // a further cycle: nothing more for the site
    const after = (await pollsDone()) + 1;
    await until("one more poll", async () => (await pollsDone()) >= after, 300_000);
    return {
      clusters,
      edgeHosts: sim.control.edge.fleet.edgeHosts.length,
      // the message arrives after the cycle that committed it: that cycle counts
      outageToldInCycles: Math.max(1, toldAfter),
      outageMessages: siteMessages().length,
      botSteadyRssMb: median(rss),
      botPeakRssMb: peakRssMb(bot.child.pid!),
      palette429s: sim.control.requests().filter((r) => r.status === 429).length,
    };
  } finally {
    clearInterval(sampler);
    await bot.kill();
    await fake.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
