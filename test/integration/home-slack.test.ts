import type { AddressInfo } from "node:net";
import { App, LogLevel } from "@slack/bolt";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AccessPolicy } from "../../src/access/types.ts";
import { ManualClock } from "../../src/clock.ts";
import { createHealth } from "../../src/http/health.ts";
import { Metrics } from "../../src/http/metrics.ts";
import { silentLogger } from "../../src/log.ts";
import { PaletteError } from "../../src/palette/errors.ts";
import { slackClientOptions } from "../../src/slack/app.ts";
import type { HomeDeps } from "../../src/slack/home-input.ts";
import { registerAppHomeOpened } from "../../src/slack/listeners/events/app-home-opened.ts";
import type { FleetSnapshot } from "../../src/views/app-home.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { loadPayload, postSigned } from "../support/slack-request.ts";

const SECRET = "test-signing-secret";

interface Envelope {
  event: { type: string; user: string; tab: string };
}

const policy: AccessPolicy = {
  allows: async (_user, permission) => permission === "kubeconfig",
  grantHint: (permission) =>
    `ask an admin to add you to ${permission === "launch" ? "ALLOW_LAUNCH" : "ALLOW_KUBECONFIG"}`,
};

let fake: FakeSlack;
let app: App | undefined;
let url: string;
let metrics: Metrics;

async function startBolt(deps: Partial<HomeDeps> = {}): Promise<void> {
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0));
  metrics = new Metrics({ defaultMetrics: false });
  const health = createHealth({
    probes: { store: () => true, slack: () => ({ ok: false, reason: "auth.test not yet run" }) },
    metrics,
  });
  app = new App({
    token: "xoxb-test-token",
    signingSecret: SECRET,
    logLevel: LogLevel.ERROR,
    clientOptions: slackClientOptions(fake.apiUrl, (method, outcome) =>
      metrics.slackCall(method, outcome),
    ),
    customRoutes: health.routes,
  });
  registerAppHomeOpened(app, {
    fleet: async (): Promise<FleetSnapshot> => ({
      at: clock.now() - 30_000,
      clusters: [
        {
          uid: "c-1",
          name: "payments-prod",
          projectUid: "p-1",
          projectName: "Payments",
          state: "Running",
          health: "UnHealthy",
          provider: "aws",
        },
        {
          uid: "c-2",
          name: "<!channel>",
          projectUid: "p-1",
          projectName: "Payments",
          state: "Running",
          health: "Healthy",
          provider: "aws",
        },
      ],
    }),
    subscriptionsFor: async (userId) =>
      userId === "W111" ? [{ channel: "C0123", kind: "alerts", project: "p-1" }] : [],
    policy,
    consoleUrl: "https://console.example.com/",
    clock,
    logger: silentLogger,
    ...deps,
  });
  const server = (await app.start({ port: 0, host: "127.0.0.1" })) as unknown as {
    address(): AddressInfo;
  };
  url = `http://127.0.0.1:${server.address().port}`;
}

function homeOpened(tab: string): string {
  const { payload } = loadPayload<{ payload: Envelope }>("event_callback.app_home_opened.json");
  return JSON.stringify({ ...payload, event: { ...payload.event, tab } });
}

beforeEach(async () => {
  fake = await startFakeSlack();
});

afterEach(async () => {
  await app?.stop();
  app = undefined;
  await fake.close();
});

describe("App Home through a real Bolt app", () => {
  it("publishes the user's home view when the Home tab opens", async () => {
    await startBolt();
    const answer = await postSigned(`${url}/slack/events`, SECRET, homeOpened("home"), {
      contentType: "application/json",
    });
    expect(answer.status).toBe(200);
    const [call] = await fake.waitFor("views.publish");
    expect(call!.body.user_id).toBe("W111");
    expect(call!.headers.authorization).toBe("Bearer xoxb-test-token");
    const view = call!.body.view as { type: string; blocks: unknown[] };
    expect(view.type).toBe("home");
    const text = JSON.stringify(view.blocks);
    expect(text).toContain("2 clusters in 1 project · 1 unhealthy");
    expect(text).toContain("*payments-prod*");
    expect(text).toContain("https://console.example.com/projects/p-1/clusters/c-1/overview");
    expect(text).toContain("Launch clusters: no (ask an admin to add you to ALLOW_LAUNCH)");
    expect(text).toContain("Download kubeconfigs: yes");
    expect(text).toContain("<#C0123> · alerts · project `p-1`");
    expect(text).not.toContain("<!channel>");
    // The fake records the call before it answers; the counter moves once the answer is in.
    await vi.waitFor(async () =>
      expect(await metrics.render()).toContain(
        'palette_chatops_slack_calls_total{method="views.publish",outcome="ok"} 1',
      ),
    );
  });

  it("publishes nothing for the Messages tab (the captured payload as it is)", async () => {
    await startBolt();
    const { payload } = loadPayload<{ payload: Envelope }>("event_callback.app_home_opened.json");
    expect(payload.event.tab).toBe("messages");
    const answer = await postSigned(`${url}/slack/events`, SECRET, JSON.stringify(payload), {
      contentType: "application/json",
    });
    expect(answer.status).toBe(200);
    // A Home open after it is the marker: had the first one published, there would be two.
    await postSigned(`${url}/slack/events`, SECRET, homeOpened("home"), {
      contentType: "application/json",
    });
    await fake.waitFor("views.publish");
    expect(fake.callsTo("views.publish")).toHaveLength(1);
  });

  it("still publishes when Palette is down, with a user-safe reason", async () => {
    await startBolt({
      fleet: async () => {
        throw new PaletteError(
          "timeout",
          0,
          undefined,
          "connect ETIMEDOUT apiKey=supersecret",
          undefined,
          "POST /v1/dashboard/spectroclusters/search",
        );
      },
    });
    await postSigned(`${url}/slack/events`, SECRET, homeOpened("home"), {
      contentType: "application/json",
    });
    const [call] = await fake.waitFor("views.publish");
    const text = JSON.stringify(call!.body.view);
    expect(text).toContain("The fleet could not be read: Palette did not answer in time.");
    expect(text).not.toContain("supersecret");
    expect(text).toContain("Your permissions");
  });

  it("rejects an unsigned event", async () => {
    await startBolt();
    const response = await fetch(`${url}/slack/events`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: homeOpened("home"),
    });
    expect(response.status).toBe(401);
    expect(fake.callsTo("views.publish")).toHaveLength(0);
  });

  it("serves the health routes on the Bolt receiver's port", async () => {
    await startBolt();
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ failing: { slack: "auth.test not yet run" } });
    const scrape = await fetch(`${url}/metrics`);
    expect(scrape.headers.get("content-type")).toContain("text/plain");
  });
});
