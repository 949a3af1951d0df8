import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runDoctor } from "../../src/app/doctor.ts";
import type { CheckLine } from "../../src/app/doctor-report.ts";
import { renderDoctor } from "../../src/app/doctor-report.ts";
import { BOT_SCOPES } from "../../src/app/doctor-slack.ts";
import { type Clock, systemClock } from "../../src/clock.ts";
import { Secret } from "../../src/secret.ts";
import {
  type RunningScriptedModel,
  startScriptedModel,
} from "../../src/simulator/scripted-model.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { leaseFor, SINGLETONS_LEASE } from "../../src/store/lease.ts";
import { openStore } from "../../src/store/open.ts";
import { openPostgres } from "../../src/store/postgres.ts";
import { openSqlite } from "../../src/store/sqlite.ts";
import { SubscriptionStore } from "../../src/store/subscriptions.ts";
import { type FakeSlack, type RecordedCall, startFakeSlack } from "../support/fake-slack.ts";
import { freshDatabase, POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";
import { openapi } from "../support/simulator-openapi.ts";
import { freePort, spawnCli } from "../support/start-process-harness.ts";

/**
 * `palette-chatops doctor` against the Palette simulator, a fake Slack and a real store (a
 * SQLite file, and the run's PostgreSQL), all over real HTTP: green on the demo's set-up, and
 * each first-install fault gives its own failing line, with what to do, and a non-zero exit.
 */

const BOT_TOKEN = "xoxb-doctor-good-token";
const APP_TOKEN = "xapp-doctor-good-token";
const SUBSCRIBED = "C0SUBSCRIBED";
// Simulator tokens are JWT-shaped: any of them in the output is a leak.
const JWT = /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/;
const OTHER_SUBSCRIBED = "C0OTHERCHAN";

let sim: RunningSimulator;
let slack: FakeSlack;
let projects: string[];
let dir: string;
let sqlitePath: string;
/** the channels the bot is a member of, as Slack would say */
let memberOf: Set<string>;
let grantedScopes: string[];

const bearer = (call: RecordedCall) => String(call.headers.authorization ?? "");

/**
 * Slack as it answers these methods: HTTP 200 with ok:false for a bad token, the granted scopes
 * in `x-oauth-scopes` on auth.test, `channel_not_found` for a private channel the bot is not in.
 */
function answerLikeSlack(fake: FakeSlack): void {
  fake.on("auth.test", (call) =>
    bearer(call) === `Bearer ${BOT_TOKEN}`
      ? {
          headers: { "x-oauth-scopes": grantedScopes.join(",") },
          body: {
            ok: true,
            url: "https://test.slack.com/",
            team: "Test",
            user: "palette",
            team_id: "T111",
            user_id: "UBOT",
            bot_id: "BBOT",
          },
        }
      : { body: { ok: false, error: "invalid_auth" } },
  );
  fake.on("apps.connections.open", (call) => {
    const auth = bearer(call);
    if (auth === `Bearer ${APP_TOKEN}`) {
      return { body: { ok: true, url: "wss://wss-primary.slack.com/link/?ticket=doctor" } };
    }
    if (auth.startsWith("Bearer xoxb-"))
      return { body: { ok: false, error: "not_allowed_token_type" } };
    return { body: { ok: false, error: "invalid_auth" } };
  });
  fake.on("conversations.info", (call) => {
    if (bearer(call) !== `Bearer ${BOT_TOKEN}`)
      return { body: { ok: false, error: "invalid_auth" } };
    const channel = String(call.body.channel);
    return {
      body: {
        ok: true,
        channel: { id: channel, name: channel.toLowerCase(), is_member: memberOf.has(channel) },
      },
    };
  });
}

beforeAll(async () => {
  sim = await startSimulator({ clusters: 12, projects: 3, seed: 3 });
  projects = sim.control.projects();
  slack = await startFakeSlack();
  dir = mkdtempSync(join(tmpdir(), "doctor-"));
  sqlitePath = join(dir, "state.sqlite");
  const db = await openSqlite(sqlitePath);
  const subscriptions = new SubscriptionStore(db, systemClock);
  await subscriptions.add({ channel: SUBSCRIBED, kind: "clusters", createdBy: "U0ADMIN" });
  await subscriptions.add({ channel: OTHER_SUBSCRIBED, kind: "alerts", createdBy: "U0ADMIN" });
  await db.close();
});

afterAll(async () => {
  await slack?.close();
  await sim?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function resetFakes(): void {
  slack.reset();
  sim.control.clearFaults();
  memberOf = new Set([SUBSCRIBED, OTHER_SUBSCRIBED]);
  grantedScopes = [...BOT_SCOPES, "chat:write.customize"];
  answerLikeSlack(slack);
}

afterEach(() => resetFakes());

/** The demo's set-up: the simulator's own key, its three projects, Socket Mode. */
function demoEnv(): Record<string, string> {
  return {
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_APP_TOKEN: APP_TOKEN,
    SLACK_API_URL: slack.apiUrl,
    PALETTE_API_URL: sim.url,
    PALETTE_API_KEY: sim.credentials.apiKey,
    PALETTE_PROJECTS: projects.join(","),
    STATE_DB: sqlitePath,
    ALLOW_LAUNCH: "U0LAUNCHER",
    ALLOW_KUBECONFIG: "*",
    ALLOW_SCALE: "U0SCALER",
  };
}

async function doctor(env: Record<string, string>, clock: Clock = systemClock) {
  const report = await runDoctor({ env, clock, timeoutMs: 5_000 });
  const text = renderDoctor(report.lines, { tty: false });
  const line = (check: string): CheckLine => {
    const found = report.lines.find((candidate) => candidate.check === check);
    if (!found) throw new Error(`no line ${check} in:\n${text}`);
    return found;
  };
  const failing = report.lines.filter((l) => l.status === "fail").map((l) => l.check);
  return { ...report, text, line, failing };
}

describe("palette-chatops doctor", () => {
  beforeAll(() => resetFakes());

  it("is all green on the demo's set-up, and says what it found", async () => {
    const report = await doctor(demoEnv());
    expect(report.failing, report.text).toEqual([]);
    expect(
      report.lines.filter((l) => l.status === "warn"),
      report.text,
    ).toEqual([]);
    expect(report.exitCode).toBe(0);
    expect(report.line("slack.auth").result).toContain("workspace Test (T111)");
    expect(report.line("slack.scopes").status).toBe("pass");
    expect(report.line("slack.mode").result).toContain("Socket Mode");
    expect(report.line("slack.channels").result).toContain("all 2 subscribed channels");
    expect(report.line("palette.login").status).toBe("pass");
    for (const project of projects)
      expect(report.line(`palette.project ${project}`).status).toBe("pass");
    expect(report.line("palette.rights").result).toContain("Tenant Admin");
    expect(report.line("store.migrations").result).toMatch(/^at head/);
    expect(report.line("clock.slack").status).toBe("pass");
    expect(report.line("clock.palette").status).toBe("pass");
    expect(report.text).toMatch(/The bot can run \(0 warnings\)\.\n$/);
    // one conversations.info per subscribed channel, with the bot's token
    expect(
      slack
        .callsTo("conversations.info")
        .map((c) => c.body.channel)
        .sort(),
    ).toEqual([OTHER_SUBSCRIBED, SUBSCRIBED]);
    expect(report.text).not.toContain(BOT_TOKEN);
    expect(report.text).not.toContain(APP_TOKEN);
    expect(report.text).not.toContain(sim.credentials.apiKey);
  });

  it("asks Palette only what its published spec has (the OpenAPI subset)", async () => {
    const before = sim.control.requests().length;
    const { PALETTE_API_KEY: _, ...rest } = demoEnv();
    await doctor({
      ...rest,
      PALETTE_EMAIL: sim.credentials.email,
      PALETTE_ORG: sim.credentials.org,
      PALETTE_PASSWORD: sim.credentials.password,
    });
    await doctor({ ...demoEnv(), PALETTE_API_KEY: sim.control.issueUserKey("viewer@example.com") });
    const templates = Object.keys(openapi.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
    }));
    const asked = sim.control
      .requests()
      .slice(before)
      .map((request) => {
        const found = templates.find(({ pattern }) => pattern.test(request.path));
        const operation = found && openapi.paths[found.template]?.[request.method.toLowerCase()];
        return `${request.method} ${found && operation ? found.template : `${request.path} (not in the subset)`}`;
      });
    expect([...new Set(asked)].sort()).toEqual([
      "GET /v1/auth/refresh/{token}",
      "GET /v1/roles/{uid}",
      "GET /v1/users/info",
      "GET /v1/users/{uid}/projects",
      "GET /v1/users/{uid}/roles",
      "POST /v1/auth/authenticate",
      "POST /v1/dashboard/spectroclusters/search",
    ]);
  });

  it("refuses a bad bot token with Slack's code and what to do (invalid_auth)", async () => {
    const report = await doctor({ ...demoEnv(), SLACK_BOT_TOKEN: "xoxb-revoked" });
    expect(report.exitCode).toBe(1);
    expect(report.failing).toEqual(["slack.auth"]);
    expect(report.line("slack.auth").result).toContain(
      "Slack refused SLACK_BOT_TOKEN (invalid_auth)",
    );
    expect(report.line("slack.auth").fix).toContain("Bot User OAuth Token");
    expect(report.line("slack.channels").status).toBe("skip");
    expect(report.text).toContain("The bot cannot run as configured: slack.auth failed");
    expect(report.text).not.toContain("xoxb-revoked");
  });

  it("says when SLACK_API_URL does not answer like Slack", async () => {
    const report = await doctor({ ...demoEnv(), SLACK_API_URL: `${slack.url}/not-the-api/` });
    expect(report.failing).toContain("slack.auth");
    expect(report.line("slack.auth").result).toContain("HTTP 404, not JSON");
    expect(report.line("slack.auth").fix).toContain("SLACK_API_URL does not answer like Slack's");
  });

  it("finds a SLACK_TEAM_ID that is not the token's workspace", async () => {
    expect((await doctor({ ...demoEnv(), SLACK_TEAM_ID: "T111" })).exitCode).toBe(0);
    const report = await doctor({ ...demoEnv(), SLACK_TEAM_ID: "T999" });
    expect(report.failing).toEqual(["slack.team"]);
    expect(report.line("slack.team").fix).toBe("set SLACK_TEAM_ID=T111, or unset it");
  });

  it("names the scope the token lacks against manifest.yml", async () => {
    grantedScopes = BOT_SCOPES.filter((scope) => scope !== "reactions:write");
    const report = await doctor(demoEnv());
    expect(report.exitCode).toBe(1);
    expect(report.failing).toEqual(["slack.scopes"]);
    expect(report.line("slack.scopes").result).toContain(
      "lacks a scope manifest.yml asks for: reactions:write",
    );
    expect(report.line("slack.scopes").fix).toContain("reinstall the app");
  });

  it("names the subscribed channel the bot is not in", async () => {
    memberOf.delete(OTHER_SUBSCRIBED);
    const report = await doctor(demoEnv());
    expect(report.exitCode).toBe(1);
    expect(report.failing).toEqual(["slack.channels"]);
    expect(report.line("slack.channels").result).toContain(
      `the bot is not in ${OTHER_SUBSCRIBED} (of 2`,
    );
    expect(report.line("slack.channels").fix).toContain("/invite @Palette");
  });

  it("refuses a bad app token for Socket Mode, and an HTTP-mode install needs none", async () => {
    const bad = await doctor({ ...demoEnv(), SLACK_APP_TOKEN: "xapp-not-this-one" });
    expect(bad.failing).toEqual(["slack.mode"]);
    expect(bad.line("slack.mode").result).toContain("Slack refused SLACK_APP_TOKEN (invalid_auth)");
    expect(bad.line("slack.mode").fix).toContain("Socket Mode on");

    const { SLACK_APP_TOKEN: _, ...http } = demoEnv();
    const ok = await doctor({ ...http, SLACK_SIGNING_SECRET: "0123456789abcdef0123456789abcdef" });
    expect(ok.exitCode, ok.text).toBe(0);
    expect(ok.line("slack.mode").result).toContain("HTTP mode");
    expect(slack.callsTo("apps.connections.open")).toHaveLength(1);
  });

  it("reports Palette's 401 for a bad API key, and checks nothing that needs the login", async () => {
    const report = await doctor({ ...demoEnv(), PALETTE_API_KEY: "not-a-palette-key" });
    expect(report.exitCode).toBe(1);
    expect(report.failing).toEqual(["palette.login"]);
    expect(report.line("palette.login").result).toMatch(/^Palette refused PALETTE_API_KEY: 401/);
    expect(report.line("palette.login").fix).toContain("API Keys");
    expect(report.line("palette.projects").status).toBe("skip");
    expect(report.line("palette.rights").status).toBe("skip");
    expect(report.text).not.toContain("not-a-palette-key");
  });

  it("names the watched project the service account may not read (403), and passes the others", async () => {
    const [first, second] = projects as [string, string];
    // Sol has an editor's role in the first project and none in the second
    const key = sim.control.issueUserKey("solo@example.com");
    const report = await doctor({
      ...demoEnv(),
      PALETTE_API_KEY: key,
      PALETTE_PROJECTS: `${first},${second}`,
    });
    expect(report.exitCode).toBe(1);
    expect(report.line(`palette.project ${first}`).status).toBe("pass");
    expect(report.line(`palette.project ${second}`).status).toBe("fail");
    expect(report.line(`palette.project ${second}`).result).toContain(
      "may not read this project: 403",
    );
    // one failing line for the one fault: the rights are checked where the project reads
    expect(report.failing).toEqual([`palette.project ${second}`]);
    expect(report.line("palette.rights").status).toBe("pass");
  });

  it("names a project UID Palette does not have (404)", async () => {
    const report = await doctor({ ...demoEnv(), PALETTE_PROJECTS: "000000000000000000000000" });
    expect(report.failing).toContain("palette.project 000000000000000000000000");
    expect(report.line("palette.project 000000000000000000000000").fix).toContain("UIDs");
  });

  it("finds a key whose role lacks the rights an enabled verb needs", async () => {
    const key = sim.control.issueUserKey("viewer@example.com");
    const report = await doctor({ ...demoEnv(), PALETTE_API_KEY: key });
    expect(report.exitCode).toBe(1);
    expect(report.failing).toEqual(["palette.rights"]);
    const rights = report.line("palette.rights").result;
    expect(rights).toContain("lacks rights the enabled verbs need: in project");
    expect(rights).toContain("roles: Project Viewer");
    expect(rights).toContain("cluster.create (ALLOW_LAUNCH)");
    expect(rights).toContain("cluster.adminKubeconfigDownload (ALLOW_KUBECONFIG)");
    expect(rights).toContain("cluster.update (ALLOW_SCALE)");
    // without those verbs, a viewer is enough
    const readOnly = await doctor({
      ...demoEnv(),
      PALETTE_API_KEY: key,
      ALLOW_LAUNCH: "",
      ALLOW_KUBECONFIG: "",
      ALLOW_SCALE: "",
    });
    expect(readOnly.exitCode, readOnly.text).toBe(0);
    expect(readOnly.line("palette.rights").status).toBe("pass");
  });

  it("warns, without blocking, when a service account's token does not refresh", async () => {
    sim.control.addFault({ pathPrefix: "/v1/auth/refresh/", kind: "status", status: 401 });
    const { PALETTE_API_KEY: _, ...rest } = demoEnv();
    const report = await doctor({
      ...rest,
      PALETTE_EMAIL: sim.credentials.email,
      PALETTE_ORG: sim.credentials.org,
      PALETTE_PASSWORD: sim.credentials.password,
    });
    expect(report.exitCode, report.text).toBe(0);
    expect(report.line("palette.login").status).toBe("pass");
    expect(report.line("palette.refresh").status).toBe("warn");
    expect(report.line("palette.refresh").result).toContain("the token refresh failed (401");
    // the session token (JWT-shaped in the simulator) is in no line
    expect(report.text).not.toMatch(JWT);
  });

  it("tells a Palette in trouble (503) from a wrong URL", async () => {
    sim.control.addFault({ pathPrefix: "/v1/users/info", kind: "status", status: 503 });
    const report = await doctor(demoEnv());
    expect(report.failing).toEqual(["palette.login"]);
    expect(report.line("palette.login").result).toContain("with 503");
    expect(report.line("palette.login").result).toContain("busy or having trouble");
  });

  it("says when PALETTE_API_URL is not Palette's API", async () => {
    const report = await doctor({ ...demoEnv(), PALETTE_API_URL: slack.url });
    expect(report.failing).toEqual(["palette.login"]);
    expect(report.line("palette.login").result).toContain("does not look like Palette's API");
  });

  it("bounds a hung Palette: its line fails after the time-out, the doctor ends", async () => {
    sim.control.addFault({ pathPrefix: "/v1/", kind: "latency", latencyMs: 20_000 });
    // 3 s: far under the 20 s the fault holds Palette, far over a local answer on a busy machine
    const report = await runDoctor({ env: demoEnv(), clock: systemClock, timeoutMs: 3_000 });
    const login = report.lines.find((l) => l.check === "palette.login")!;
    expect(login.status).toBe("fail");
    expect(login.result).toContain("no answer within 3000 ms");
    expect(report.exitCode).toBe(1);
  });

  it("bounds a hung Slack too: the channels it could not ask are named, the doctor ends", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // first in line, before the handlers that answer like Slack
    slack.reset();
    slack.on("conversations.info", async () => {
      await held;
      return undefined;
    });
    answerLikeSlack(slack);
    try {
      const report = await runDoctor({ env: demoEnv(), clock: systemClock, timeoutMs: 3_000 });
      const channels = report.lines.find((l) => l.check === "slack.channels")!;
      expect(channels.status).toBe("warn");
      expect(channels.result).toContain(`${SUBSCRIBED} (no answer within 3000 ms)`);
    } finally {
      release();
    }
  });

  it("warns of a clock far from Slack's and Palette's Date, without blocking", async () => {
    const ahead: Clock = { now: () => Date.now() + 90_000 };
    const report = await doctor(demoEnv(), ahead);
    expect(report.exitCode, report.text).toBe(0);
    expect(report.line("clock.slack").status).toBe("warn");
    expect(report.line("clock.slack").result).toMatch(/is (89|90|91) s ahead of Slack's Date/);
    expect(report.line("clock.palette").status).toBe("warn");
  });

  it("fails on a clock over 5 minutes off in HTTP mode (Slack refuses the signatures)", async () => {
    const { SLACK_APP_TOKEN: _, ...http } = demoEnv();
    const behind: Clock = { now: () => Date.now() - 10 * 60_000 };
    const report = await doctor({ ...http, SLACK_SIGNING_SECRET: "s".repeat(32) }, behind);
    expect(report.failing).toEqual(["clock.slack"]);
    expect(report.line("clock.slack").result).toContain("behind Slack's");
  });

  describe("the assistant's model API (ASSISTANT_PROVIDER)", () => {
    const MODEL_KEY = "sk-doctor-model-key-0123456789";
    let model: RunningScriptedModel;
    beforeAll(async () => {
      model = await startScriptedModel({ apiKey: MODEL_KEY, models: ["scripted", "other"] });
    });
    afterAll(async () => {
      await model?.close();
    });
    afterEach(() => {
      model.setFault(undefined);
      model.requests.length = 0;
    });
    const withModel = (extra: Record<string, string>) => ({
      ...demoEnv(),
      ASSISTANT_BASE_URL: model.baseUrl,
      ASSISTANT_MODEL: "scripted",
      ASSISTANT_API_KEY: MODEL_KEY,
      ...extra,
    });

    it("is skipped, asking no model, when ASSISTANT_PROVIDER is unset", async () => {
      const report = await doctor(demoEnv());
      expect(report.line("assistant").status).toBe("skip");
      expect(report.text).toMatch(/SKIP {2}assistant +not checked: ASSISTANT_PROVIDER is not set/);
      expect(model.requests).toEqual([]);
    });

    it("passes against the model with the key, through OpenAI's GET /v1/models, spending no tokens", async () => {
      for (const provider of ["openai", "openai-compatible"]) {
        model.requests.length = 0;
        const report = await doctor(withModel({ ASSISTANT_PROVIDER: provider }));
        expect(report.line("assistant").status, report.text).toBe("pass");
        expect(report.line("assistant").result).toContain("key accepted, scripted served");
        expect(report.exitCode).toBe(0);
        expect(model.requests.map((r) => [r.protocol, r.path])).toEqual([["openai", "/v1/models"]]);
        expect(model.requests[0]!.authorization).toBe(`Bearer ${MODEL_KEY}`);
        expect(report.text).not.toContain(MODEL_KEY);
      }
    });

    it("passes through Anthropic's GET /v1/models with x-api-key and anthropic-version", async () => {
      const report = await doctor(withModel({ ASSISTANT_PROVIDER: "anthropic" }));
      expect(report.line("assistant").status, report.text).toBe("pass");
      expect(model.requests.map((r) => [r.protocol, r.path])).toEqual([
        ["anthropic", "/v1/models"],
      ]);
      expect(model.requests[0]!.authorization).toBe(MODEL_KEY);
      expect(report.text).not.toContain(MODEL_KEY);
    });

    it("fails on a key the API refuses (401), naming neither the key nor a part of it", async () => {
      for (const provider of ["openai", "anthropic"]) {
        const wrong = "sk-doctor-wrong-key-9876543210";
        const report = await doctor(
          withModel({ ASSISTANT_PROVIDER: provider, ASSISTANT_API_KEY: wrong }),
        );
        const line = report.line("assistant");
        expect(line.status, report.text).toBe("fail");
        expect(line.result).toContain("refused the key: HTTP 401");
        expect(line.result).toContain(
          provider === "openai" ? "(invalid_api_key)" : "(authentication_error)",
        );
        expect(line.fix).toContain("ASSISTANT_API_KEY");
        expect(report.exitCode).toBe(1);
        expect(report.text).toContain("assistant failed");
        expect(report.text).not.toContain(wrong);
        expect(report.text).not.toContain("9876");
      }
    });

    it("fails on an endpoint nothing answers, with the system's reason", async () => {
      const port = await freePort();
      const report = await doctor(
        withModel({
          ASSISTANT_PROVIDER: "openai-compatible",
          ASSISTANT_BASE_URL: `http://127.0.0.1:${port}/v1`,
        }),
      );
      const line = report.line("assistant");
      expect(line.status, report.text).toBe("fail");
      expect(line.result).toContain("cannot be reached: ECONNREFUSED");
      expect(line.fix).toContain("ASSISTANT_BASE_URL");
      expect(report.exitCode).toBe(1);
    });

    it("bounds a hung model server: its line fails after the time-out", async () => {
      model.setFault("hang");
      const report = await runDoctor({
        env: withModel({ ASSISTANT_PROVIDER: "openai" }),
        clock: systemClock,
        timeoutMs: 3_000,
      });
      const line = report.lines.find((l) => l.check === "assistant")!;
      expect(line.status).toBe("fail");
      expect(line.result).toContain("no answer within 3000 ms");
    });

    it("fails on a base that is not the API's (404), and warns of a model the server does not list", async () => {
      const root = model.baseUrl.replace(/\/v1$/, "/nope");
      const missing = await doctor(
        withModel({ ASSISTANT_PROVIDER: "openai-compatible", ASSISTANT_BASE_URL: root }),
      );
      expect(missing.line("assistant").status, missing.text).toBe("fail");
      expect(missing.line("assistant").result).toContain("HTTP 404");
      const unlisted = await doctor(
        withModel({ ASSISTANT_PROVIDER: "openai-compatible", ASSISTANT_MODEL: "llama3.1:8b" }),
      );
      expect(unlisted.line("assistant").status, unlisted.text).toBe("warn");
      expect(unlisted.line("assistant").fix).toContain("scripted, other");
      expect(unlisted.exitCode).toBe(0);
    });
  });

  it("turns a configuration error into its line, checking nothing else", async () => {
    const { PALETTE_API_KEY: _, ...noKey } = demoEnv();
    const report = await doctor(noKey);
    expect(report.exitCode).toBe(1);
    expect(report.lines).toHaveLength(1);
    expect(report.line("config").result).toContain("PALETTE_API_KEY");
    expect(slack.calls).toHaveLength(0);
  });

  it("warns, without failing, of a SQLite file not created yet", async () => {
    const path = join(dir, "new", "state.sqlite");
    const report = await doctor({ ...demoEnv(), STATE_DB: path });
    expect(report.exitCode, report.text).toBe(0);
    // the doctor creates nothing: the bot does, at start
    expect(existsSync(path)).toBe(false);
    expect(report.line("store.reach").status).toBe("warn");
    expect(report.line("store.migrations").status).toBe("skip");
    expect(report.line("slack.channels").result).toContain("no channel subscribed yet");
  });
});

describe("palette-chatops doctor on PostgreSQL", () => {
  let databaseUrl: string;

  beforeAll(async () => {
    resetFakes();
    databaseUrl = (await freshDatabase()).url;
    const db = await openStore({ kind: "postgres", url: new Secret(databaseUrl) });
    await new SubscriptionStore(db, systemClock).add({
      channel: SUBSCRIBED,
      kind: "all",
      createdBy: "U0ADMIN",
    });
    await leaseFor(db, SINGLETONS_LEASE).tryAcquire("replica-a", 60_000, Date.now());
    await db.close();
  }, POSTGRES_SETUP_TIMEOUT_MS);

  it("is green with a service account, a token refresh and the leader named", async () => {
    const { PALETTE_API_KEY: _, STATE_DB: __, ...rest } = demoEnv();
    const report = await doctor({
      ...rest,
      PALETTE_EMAIL: sim.credentials.email,
      PALETTE_ORG: sim.credentials.org,
      PALETTE_PASSWORD: sim.credentials.password,
      DATABASE_URL: databaseUrl,
    });
    expect(report.failing, report.text).toEqual([]);
    expect(report.exitCode).toBe(0);
    expect(report.line("palette.refresh").status).toBe("pass");
    expect(report.line("store.reach").result).toContain("PostgreSQL");
    expect(report.line("store.migrations").status).toBe("pass");
    expect(report.line("store.lease").result).toContain("the leader is replica-a");
    expect(report.line("slack.channels").result).toContain("all 1 subscribed channel");
    expect(report.text).not.toContain(sim.credentials.password);
    expect(report.text).not.toContain(databaseUrl);
    expect(report.text).not.toMatch(JWT);
  });

  it("reads an empty database without migrating it: the bot does that at start", async () => {
    const empty = (await freshDatabase()).url;
    const { STATE_DB: _, ...rest } = demoEnv();
    const report = await doctor({ ...rest, DATABASE_URL: empty });
    expect(report.exitCode, report.text).toBe(0);
    expect(report.line("store.migrations").status).toBe("warn");
    expect(report.line("store.migrations").result).toMatch(/^(\d+) of \1 migrations to apply/);
    expect(report.line("store.lease").result).toContain("no replica leads now");
    const db = await openPostgres(empty);
    try {
      const table = await db.get<{ name: string | null }>(
        "SELECT to_regclass('schema_migrations') AS name",
      );
      expect(table?.name ?? null).toBeNull();
    } finally {
      await db.close();
    }
  });

  it("fails on a database that is down, naming no password", async () => {
    const port = await freePort();
    const { STATE_DB: _, ...rest } = demoEnv();
    const report = await doctor({
      ...rest,
      DATABASE_URL: `postgres://chatops:doctor-db-password@127.0.0.1:${port}/chatops`,
    });
    expect(report.exitCode).toBe(1);
    expect(report.failing).toEqual(["store.reach"]);
    expect(report.line("store.reach").result).toContain("ECONNREFUSED");
    expect(report.line("store.reach").fix).toContain("DATABASE_URL");
    expect(report.line("store.migrations").status).toBe("skip");
    expect(report.line("slack.channels").status).toBe("skip");
    expect(report.text).not.toContain("doctor-db-password");
  });
});

describe("palette-chatops doctor, the command line", () => {
  beforeAll(() => resetFakes());

  it("exits 0 on the demo's set-up and 1 on a bad bot token, with plain words in a pipe", async () => {
    const green = spawnCli(["doctor"], demoEnv());
    expect((await green.exited).code, green.output()).toBe(0);
    expect(green.stdout()).toMatch(/^PASS {2}slack\.auth/m);
    expect(green.stdout()).not.toContain("✅");

    const red = spawnCli(["doctor"], { ...demoEnv(), SLACK_BOT_TOKEN: "xoxb-wrong" });
    expect((await red.exited).code, red.output()).toBe(1);
    expect(red.stdout()).toMatch(
      /^FAIL {2}slack\.auth\s+Slack refused SLACK_BOT_TOKEN \(invalid_auth\)/m,
    );
    expect(red.stdout()).toContain("slack.auth failed");
  }, 60_000);
});
