import { randomBytes } from "node:crypto";
import { systemClock } from "../clock.ts";
import type { LogLevel } from "../config.ts";
import { createConsolePoster } from "../console/notifications.ts";
import { createLogger } from "../log.ts";
import { DEFAULT_EDGE_RISK_SETTINGS } from "../model/edge-risk.ts";
import { createSender } from "../notify/delivery/outbox-sender.ts";
import { createDigestJob } from "../notify/digest/channel-digest-job.ts";
import { createPoller } from "../notify/poll/poll.ts";
import { createEdgeRiskNotifier } from "../radar/edge-notices.ts";
import { createRiskNotifier } from "../radar/notices.ts";
import { createRadar } from "../radar/sweep.ts";
import { Secret } from "../secret.ts";
import { startScriptedModel } from "../simulator/scripted-model.ts";
import { startSimulator } from "../simulator/server.ts";
import { SubscriptionStore } from "../store/subscriptions.ts";
import { buildAssistant } from "./assistant.ts";
import { openConsoleSession, runConsoleOn } from "./console.ts";
import { buildIdentity } from "./identity.ts";

/** The demo polls often and the simulator moves clusters, so notifications show within a minute. */
const DEMO_POLL_SCHEDULE = "*/5 * * * * *";
const DEMO_ANIMATE_MS = 7_000;

/**
 * `npm run demo`: a Palette simulator and the console in one process, no Slack and no Palette
 * account. The console channel is subscribed to everything, so notifications print as they happen.
 * `--linked`: IDENTITY=linked, with two simulated people's keys printed to `login` with.
 */
export async function runDemo(argv: string[], logLevel: LogLevel): Promise<number> {
  const quiet = argv.includes("--no-notify");
  const logger = createLogger(logLevel, process.stderr);
  const clock = systemClock;
  const sim = await startSimulator({ clusters: 40, projects: 3, animateEveryMs: DEMO_ANIMATE_MS });
  const session = await openConsoleSession({
    apiUrl: sim.url,
    credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
    projects: sim.control.projects(),
    consoleUrl: "https://console.spectrocloud.com/",
    stateDb: { kind: "sqlite", path: ":memory:" },
    logger,
    clock,
  });

  // the assistant on a scripted local model (no key, no network): `ask which clusters are unhealthy?`
  const model = await startScriptedModel();
  session.assistant = await buildAssistant({
    config: {
      provider: "openai-compatible",
      baseUrl: model.baseUrl,
      model: "scripted",
      maxToolCalls: 8,
      tokenBudget: 16_000,
      perUserPerHour: 60,
      timeoutMs: 30_000,
      historyDays: 1,
      auditText: false,
    },
    deps: session.deps,
  });
  const out = (text: string) => process.stdout.write(text);
  out(
    [
      "palette-chatops demo: a simulated Palette with 40 clusters in 3 projects.",
      `Type /palette help (or just help).${quiet ? "" : " This console is subscribed: cluster changes print as they happen."}`,
      "Ask in your own words too (a scripted local model): ask which clusters are unhealthy?",
      "",
    ].join("\n"),
  );
  if (argv.includes("--linked")) {
    // IDENTITY=linked, as in "Acting as yourself": `login` asks for one of these people's keys
    session.deps.identity = buildIdentity(
      {
        mode: "linked",
        method: "key",
        keys: { current: new Secret(randomBytes(32).toString("base64")) },
      },
      { db: session.db, clock, logger, paletteApiUrl: sim.url },
    );
    out(
      [
        "Acting as yourself is on: `kubeconfig` and `launch` run as the Palette user you `login` as.",
        `  viewer (Vera Viewer, viewer everywhere): ${sim.control.issueUserKey("viewer@example.com")}`,
        `  editor (Eddie Editor, editor everywhere): ${sim.control.issueUserKey("editor@example.com")}`,
        "",
      ].join("\n"),
    );
  }

  const sender = createSender({
    db: session.db,
    slack: createConsolePoster(out),
    clock,
    logger,
    minGapMs: 0,
  });
  // the console has no card to edit; an Unmute's summary goes out at once, not at the next poll
  session.deps.onHoldChange = async (change) => {
    if (change.queued) sender.wake();
  };
  const poller = createPoller({
    palette: session.palette,
    db: session.db,
    clock,
    logger,
    projects: sim.control.projects(),
    schedule: DEMO_POLL_SCHEDULE,
    likelyCauses: true,
    onCommitted: () => sender.wake(),
  });
  // `/palette digest daily 09:00` in the demo is posted at 09:00 too, to the console
  const digests = createDigestJob({
    db: session.db,
    clock,
    logger,
    onCommitted: () => sender.wake(),
  });
  session.deps.onDigestChange = () => digests.sync();
  // the radar (issue 28), quick here: a notice for a cluster whose certificates expire in 12
  // days prints within seconds, and `renew certificates <name>` renews them
  const radar = createRadar({
    palette: session.palette,
    db: session.db,
    clock,
    logger,
    projects: sim.control.projects(),
    callsPerMinute: 600,
    settings: { certWarnDays: 30, repaveWarnHours: 24 },
    notifier: createRiskNotifier({
      db: session.db,
      slack: createConsolePoster(out),
      clock,
      logger,
    }),
    // the edge fleet's risks (issue 39, item 5): its tokens expiring soon, shells left open
    edge: {
      palette: session.palette,
      settings: DEFAULT_EDGE_RISK_SETTINGS,
      notifier: createEdgeRiskNotifier({
        db: session.db,
        slack: createConsolePoster(out),
        clock,
        logger,
      }),
    },
  });
  if (!quiet) {
    await new SubscriptionStore(session.db, clock).add({
      channel: "console",
      kind: "all",
      createdBy: "console",
    });
    await new SubscriptionStore(session.db, clock).add({
      channel: "console",
      kind: "risks",
      createdBy: "console",
    });
    // the sweep reads the clusters in UID order first: this one is among the first read
    const [nearExpiry] = sim.control.clusters().sort((a, b) => a.uid.localeCompare(b.uid));
    if (nearExpiry) sim.control.setCertificateExpiry(nearExpiry.uid, clock.now() + 12 * 86_400_000);
    // the baseline first, so it does not land in the middle of the first answer
    await poller.runCycle();
    await sender.drainAll(20);
    poller.start();
    sender.start();
    await digests.start();
    radar.start();
    radar.readEdge().catch((error: unknown) => {
      logger.warn({ err: String(error) }, "edge risks not read");
    });
  }

  try {
    await runConsoleOn(session);
  } finally {
    await radar.stop();
    await poller.stop();
    await digests.stop();
    await sender.stop();
    await session.close();
    await model.close();
    await sim.close();
  }
  return 0;
}
