/**
 * The largest `/palette audit` export allowed (`npm run bench -- audit-export`; issue 31, item
 * 19): the bot as its own process (compiled, `node dist/main.js start`, HTTP mode, the image's
 * node settings) with AUDIT_EXPORT_MAX at its maximum (1,000,000), its SQLite store filled with
 * the most rows of its own an export takes (50,000, MAX_EXPORT_ROWS) and the simulator's audit
 * log with AUDIT_BENCH_ENTRIES of Palette's entries (default 1,000,000) in one project. One
 * signed `/palette audit project:<p> since 7d` by someone on ALLOW_AUDIT; measured: the bot's
 * resident memory before (idle, median of 1 s samples), during the export (median and most of
 * 0.5 s samples) and its VmHWM after, the time to the answer, the rows and entries in the file,
 * its size, and whether it stopped at a bound (the 10-minute one for Palette's side included).
 *
 * AUDIT_BENCH_TMPDIR (issue 37, item 5): the bot's TMPDIR, e.g. a 64 MB tmpfs
 * (`mount -t tmpfs -o size=64m tmpfs <dir>`): too small for the largest export, which is then
 * refused up front. Either way the run asks the bot's /readyz and a second command afterwards:
 * the bot alive after the export.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startSimulator } from "../src/simulator/server.ts";
import { openSqlite } from "../src/store/sqlite.ts";
import { startFakeSlack } from "../test/support/fake-slack.ts";
import { postSigned, slashCommandBody } from "../test/support/slack-request.ts";
import { freePort, spawnCli, until } from "../test/support/start-process-harness.ts";
import { buildBot } from "./compiled-bot.ts";
import { imageNodeFlags, imageNodeOptions } from "./image-node-options.ts";
import { peakRssMb, rssMb } from "./process-memory.ts";

const SIGNING_SECRET = "audit-export-bench-signing-secret";
const AUDITOR = "W0AUDITOR";
const BOT_ROWS = 50_000;
const EXPORT_MAX = 1_000_000;
const DAY = 86_400_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

export async function runAuditExportBench(
  paletteEntries = Number(process.env.AUDIT_BENCH_ENTRIES ?? EXPORT_MAX),
) {
  const script = buildBot();
  const dir = mkdtempSync(join(tmpdir(), "audit-export-bench-"));
  const sim = await startSimulator({ clusters: 10, projects: 1, seed: 19, unhealthy: 0 });
  const project = sim.control.projects()[0]!;
  const cluster = sim.control.clusters(project)[0]!;
  const now = Date.now();
  for (let i = 0; i < paletteEntries; i++) {
    sim.control.addAudit({
      clusterUid: cluster.uid,
      actionType: i % 2 === 0 ? "update" : "activity",
      actionMsg: `Cluster profile 'web-base' updated to 1.${i % 100}.0 (entry ${i})`,
      email: i % 3 === 0 ? "editor@example.com" : "viewer@example.com",
      // spread over the last six days
      at: now - 60_000 - Math.floor((i * 6 * DAY) / Math.max(1, paletteEntries)),
    });
  }
  // the store: migrated, then filled with the bot's own rows, as a busy bot's would be
  const storePath = join(dir, "audit.sqlite");
  const store = await openSqlite(storePath);
  await store.run(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO audit (at, user_id, action, target, outcome, detail, project_uid)
     SELECT strftime('%Y-%m-%dT%H:%M:%fZ', ? / 1000.0 - i * 8, 'unixepoch'), 'W0SOMEONE',
       'change', 'scale web-' || i, 'accepted', '{"pool":"worker","from":3,"to":5}', ? FROM n`,
    [BOT_ROWS, now - 60_000, project],
  );
  await store.close();

  const fake = await startFakeSlack();
  const port = await freePort();
  const bot = spawnCli(
    ["start"],
    {
      SLACK_BOT_TOKEN: "xoxb-audit-export-bench",
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      PALETTE_API_URL: sim.url,
      PALETTE_API_KEY: sim.credentials.apiKey,
      PALETTE_PROJECTS: project,
      PORT: String(port),
      STATE_DB: storePath,
      POLL_SCHEDULE: "0 0 */6 * * *",
      RECONCILE_SCHEDULE: "0 0 */6 * * *",
      RADAR_CALLS_PER_MINUTE: "0",
      ALLOW_AUDIT: AUDITOR,
      AUDIT_EXPORT_MAX: String(EXPORT_MAX),
      LOG_LEVEL: "warn",
      NODE_ENV: "production",
      ...(process.env.AUDIT_BENCH_TMPDIR ? { TMPDIR: process.env.AUDIT_BENCH_TMPDIR } : {}),
      NODE_OPTIONS: imageNodeOptions(),
    },
    { script, nodeArgs: imageNodeFlags() },
  );
  const botUrl = `http://127.0.0.1:${port}`;
  try {
    await until(
      "the bot ready",
      async () => (await fetch(`${botUrl}/readyz`).catch(() => undefined))?.status === 200,
      600_000,
    );
    const idle: number[] = [];
    for (let i = 0; i < 10; i++) {
      idle.push(rssMb(bot.child.pid!));
      await sleep(1_000);
    }
    const id = "audit-export-1";
    const sent = performance.now();
    await postSigned(
      `${botUrl}/slack/events`,
      SIGNING_SECRET,
      slashCommandBody({
        text: `audit project:${project} since 7d`,
        userId: AUDITOR,
        channelId: "C0AUDIT",
        responseUrl: `${fake.url}/response/${id}`,
      }),
    );
    const during: number[] = [];
    /** [seconds since the command, MB] every 5 s, to see where the peak falls */
    const timeline: Array<[number, number]> = [];
    const answered = () => fake.callsTo("response").find((call) => call.body._responseId === id);
    while (!answered()) {
      const mb = rssMb(bot.child.pid!);
      during.push(mb);
      if (during.length % 10 === 1 || mb > Math.max(0, ...during.slice(0, -1))) {
        timeline.push([Math.round((performance.now() - sent) / 1000), mb]);
      }
      await sleep(500);
      if (performance.now() - sent > 30 * 60_000) throw new Error("no answer in 30 minutes");
    }
    const seconds = Math.round((performance.now() - sent) / 100) / 10;
    const answer = JSON.stringify(answered()!.body);
    const file = [...fake.uploads.values()][0];
    let botRows = 0;
    let paletteRows = 0;
    let noteLines: string[] = [];
    if (file) {
      const text = file.toString("utf8");
      for (const line of text.split("\r\n")) {
        if (line.startsWith("bot,")) botRows += 1;
        else if (line.startsWith("palette,")) paletteRows += 1;
        else if (line.startsWith("export,")) noteLines.push(line.slice(0, 300));
      }
    } else noteLines = [answer.slice(0, 500)];
    // the bot after the export: still ready, and answering the next command
    const readyAfter = (await fetch(`${botUrl}/readyz`).catch(() => undefined))?.status === 200;
    await postSigned(
      `${botUrl}/slack/events`,
      SIGNING_SECRET,
      slashCommandBody({
        text: "help",
        userId: AUDITOR,
        channelId: "C0AUDIT",
        responseUrl: `${fake.url}/response/after-export`,
      }),
    );
    await until(
      "the next command answered",
      () => fake.callsTo("response").some((call) => call.body._responseId === "after-export"),
      60_000,
    );
    return {
      bench: "audit-export",
      node: process.version,
      tmpdir: process.env.AUDIT_BENCH_TMPDIR ?? "the OS's",
      setup: `bot as its own process (compiled, image node settings, HTTP mode, SQLite with ${BOT_ROWS} audit rows); AUDIT_EXPORT_MAX=${EXPORT_MAX}; simulator audit log of ${paletteEntries} entries in one project; one /palette audit project:<p> since 7d`,
      paletteEntriesInSimulator: paletteEntries,
      botRowsInFile: botRows,
      paletteEntriesInFile: paletteRows,
      fileMb: file ? Math.round(file.byteLength / 100_000) / 10 : 0,
      secondsToAnswer: seconds,
      stopped: noteLines,
      paletteAuditCalls: sim.control.requests().filter((r) => r.path === "/v1/audits").length,
      botIdleRssMb: median(idle),
      botExportMedianRssMb: median(during),
      botExportMaxSampledRssMb: Math.max(0, ...during),
      botPeakRssMb: peakRssMb(bot.child.pid!),
      rssTimeline: timeline,
      botAliveAfter: bot.child.exitCode === null && readyAfter,
    };
  } finally {
    await bot.kill();
    await fake.close();
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log(JSON.stringify(await runAuditExportBench(), null, 2));
}
