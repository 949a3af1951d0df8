import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, logLevelFrom } from "../../src/config.ts";

const base = {
  SLACK_BOT_TOKEN: "xoxb-test-bot-token",
  SLACK_SIGNING_SECRET: "signing-secret-value",
  PALETTE_API_KEY: "palette-api-key-value",
};

function errorOf(env: Record<string, string | undefined>, requireSlack = true): ConfigError {
  try {
    loadConfig(env, { requireSlack });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    const config = loadConfig(base);
    expect(config.slack?.mode).toBe("http");
    expect(config.slack?.apiUrl).toBe("https://slack.com/api/");
    expect(config.port).toBe(3000);
    expect(config.palette.apiUrl).toBe("https://api.spectrocloud.com/");
    expect(config.palette.consoleUrl).toBe("https://console.spectrocloud.com/");
    expect(config.palette.projects).toEqual([]);
    expect(config.pollSchedule).toBe("*/30 * * * * *");
    expect(config.reconcileSchedule).toBe("0 */10 * * * *");
    expect(config.tokenRefreshSchedule).toBe("*/10 * * * *");
    expect(config.stateDb).toEqual({ kind: "sqlite", path: "./data/palette-chatops.sqlite" });
    expect(config.allowLaunch).toEqual([]);
    expect(config.allowSubscribe).toEqual(["*"]);
    expect(config.logLevel).toBe("info");
  });

  it("uses Socket Mode when an app token is set, without a signing secret", () => {
    const config = loadConfig({
      ...base,
      SLACK_SIGNING_SECRET: undefined,
      SLACK_APP_TOKEN: "xapp-1-x",
    });
    expect(config.slack?.mode).toBe("socket");
  });

  it("parses lists and the service account", () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-1",
      SLACK_SIGNING_SECRET: "s",
      PALETTE_EMAIL: "bot@example.com",
      PALETTE_ORG: "acme",
      PALETTE_PASSWORD: "hunter2",
      PALETTE_PROJECTS: " p1, p2 ,,",
      ALLOW_LAUNCH: "U123,S456",
      ALLOW_KUBECONFIG: "*",
      ALLOW_SUBSCRIBE: "S0NCALL",
    });
    expect(config.palette.credentials.kind).toBe("serviceAccount");
    expect(config.palette.projects).toEqual(["p1", "p2"]);
    expect(config.allowLaunch).toEqual(["U123", "S456"]);
    expect(config.allowKubeconfig).toEqual(["*"]);
    expect(config.allowSubscribe).toEqual(["S0NCALL"]);
  });

  it.each([
    [{ ...base, PORT: "http" }, "PORT"],
    [{ ...base, PORT: "70000" }, "PORT"],
    [{ ...base, PALETTE_API_URL: "not a url" }, "PALETTE_API_URL"],
    [{ ...base, LOG_LEVEL: "loud" }, "LOG_LEVEL"],
    [{ ...base, POLL_SCHEDULE: "every minute" }, "POLL_SCHEDULE"],
    [{ ...base, POLL_SCHEDULE: "61 * * * * *" }, "POLL_SCHEDULE"],
    [{ ...base, TOKEN_REFRESH_SCHEDULE: "*/10 * * *" }, "TOKEN_REFRESH_SCHEDULE"],
    [{ ...base, RECONCILE_SCHEDULE: "every 10 minutes" }, "RECONCILE_SCHEDULE"],
    [{ ...base, RECONCILE_SCHEDULE: "0 */10 * * * * *" }, "RECONCILE_SCHEDULE"],
    [{ ...base, ALLOW_LAUNCH: "alice" }, "ALLOW_LAUNCH"],
    [{ ...base, ALLOW_SUBSCRIBE: "#oncall" }, "ALLOW_SUBSCRIBE"],
    [{ ...base, SLACK_BOT_TOKEN: undefined }, "SLACK_BOT_TOKEN"],
    [{ ...base, SLACK_SIGNING_SECRET: undefined }, "SLACK_SIGNING_SECRET"],
    [{ ...base, PALETTE_API_KEY: undefined }, "PALETTE_API_KEY"],
    [
      { ...base, PALETTE_API_KEY: undefined, PALETTE_EMAIL: "a@b.c", PALETTE_ORG: "o" },
      "PALETTE_PASSWORD",
    ],
  ])("names the variable in one line: %#", (env, variable) => {
    const error = errorOf(env);
    expect(error.variable).toBe(variable);
    expect(error.message.startsWith(`${variable}: `)).toBe(true);
    expect(error.message).not.toContain("\n");
  });

  it("takes RECONCILE_SCHEDULE as a node-cron expression like POLL_SCHEDULE", () => {
    expect(loadConfig({ ...base, RECONCILE_SCHEDULE: "0 */5 * * * *" }).reconcileSchedule).toBe(
      "0 */5 * * * *",
    );
    expect(errorOf({ ...base, RECONCILE_SCHEDULE: "soon" }).message).toContain(
      "wants a valid node-cron expression",
    );
  });

  it("names the Slack token first when nothing is set", () => {
    expect(errorOf({}).variable).toBe("SLACK_BOT_TOKEN");
    expect(errorOf({}, false).variable).toBe("PALETTE_API_KEY");
  });

  it("does not need Slack for the console", () => {
    const config = loadConfig({ PALETTE_API_KEY: "k" }, { requireSlack: false });
    expect(config.slack).toBeUndefined();
  });

  it("never prints a secret", () => {
    const config = loadConfig({ ...base, PALETTE_PASSWORD: "pw" });
    const printed = [
      JSON.stringify(config),
      inspect(config, { depth: 10 }),
      `${config.slack?.botToken}`,
    ].join("\n");
    for (const secret of Object.values(base)) expect(printed).not.toContain(secret);
    expect(printed).toContain("[redacted]");
    if (config.palette.credentials.kind !== "apiKey") throw new Error("expected an API key");
    expect(config.palette.credentials.apiKey.reveal()).toBe(base.PALETTE_API_KEY);
  });
});

describe("logLevelFrom (the demo's LOG_LEVEL)", () => {
  it("takes the verb's default when unset or blank, and the variable when valid", () => {
    expect(logLevelFrom({}, "warn")).toBe("warn");
    expect(logLevelFrom({ LOG_LEVEL: " " }, "warn")).toBe("warn");
    expect(logLevelFrom({ LOG_LEVEL: "debug" }, "warn")).toBe("debug");
  });

  it("refuses a bad level with the same one-line error as the rest of the configuration", () => {
    expect(() => logLevelFrom({ LOG_LEVEL: "loud" }, "warn")).toThrow(ConfigError);
    expect(() => logLevelFrom({ LOG_LEVEL: "loud" }, "warn")).toThrow(/LOG_LEVEL/);
  });
});

describe("SLACK_TEAM_ID", () => {
  const base = {
    SLACK_BOT_TOKEN: "xoxb-1",
    SLACK_SIGNING_SECRET: "s",
    PALETTE_API_KEY: "k",
  };

  it("is the home workspace when set, and unset by default", () => {
    expect(loadConfig(base).slack?.homeTeamId).toBeUndefined();
    expect(loadConfig({ ...base, SLACK_TEAM_ID: "T0123ABCD" }).slack?.homeTeamId).toBe("T0123ABCD");
  });

  it("refuses a value that is not a workspace ID, naming the variable", () => {
    expect(() => loadConfig({ ...base, SLACK_TEAM_ID: "my-team" })).toThrow(/SLACK_TEAM_ID/);
  });
});

describe("ALLOW_ACK", () => {
  it("is everyone by default, like ALLOW_SUBSCRIBE, and takes the same IDs", () => {
    expect(loadConfig(base).allowAck).toEqual(["*"]);
    expect(loadConfig({ ...base, ALLOW_ACK: "S0NCALL, U123" }).allowAck).toEqual([
      "S0NCALL",
      "U123",
    ]);
  });

  it("refuses anything but Slack IDs or *, naming the variable", () => {
    const error = errorOf({ ...base, ALLOW_ACK: "@oncall" });
    expect(error.variable).toBe("ALLOW_ACK");
    expect(error.message).toContain("user-group IDs");
  });
});

describe("the state store (STATE_DB, DATABASE_URL)", () => {
  const base = {
    SLACK_BOT_TOKEN: "xoxb-1",
    SLACK_SIGNING_SECRET: "s",
    PALETTE_API_KEY: "k",
  };
  const url = "postgres://bot:pg-password-value@db.internal:5432/chatops";

  it("keeps SQLite for a path or :memory:", () => {
    expect(loadConfig({ ...base, STATE_DB: ":memory:" }).stateDb).toEqual({
      kind: "sqlite",
      path: ":memory:",
    });
    expect(loadConfig({ ...base, STATE_DB: "/var/lib/bot/state.db" }).stateDb).toEqual({
      kind: "sqlite",
      path: "/var/lib/bot/state.db",
    });
  });

  it("selects PostgreSQL for a postgres:// or postgresql:// STATE_DB, or DATABASE_URL", () => {
    for (const env of [
      { STATE_DB: url },
      { STATE_DB: url.replace("postgres:", "postgresql:") },
      { DATABASE_URL: url },
    ]) {
      const store = loadConfig({ ...base, ...env }).stateDb;
      expect(store.kind).toBe("postgres");
      expect(store.kind === "postgres" && store.url.reveal()).toMatch(/pg-password-value/);
    }
  });

  it("refuses STATE_DB and DATABASE_URL naming different stores, naming both", () => {
    for (const stateDb of ["./state.db", "postgres://other:pg-password-value@db2:5432/x"]) {
      const error = errorOf({ ...base, STATE_DB: stateDb, DATABASE_URL: url });
      expect(error.variable).toBe("STATE_DB");
      expect(error.message).toContain("DATABASE_URL");
      expect(error.message).toMatch(/different stores/);
      expect(error.message).not.toContain("pg-password-value");
    }
    expect(errorOf({ ...base, STATE_DB: "./state.db", DATABASE_URL: url }).message).toContain(
      "./state.db",
    );
    // the same URL twice is one store: nothing to refuse
    expect(loadConfig({ ...base, STATE_DB: url, DATABASE_URL: url }).stateDb.kind).toBe("postgres");
  });

  it("takes SQLITE_DEFAULT_PATH (the image's /data file) only when no store is chosen", () => {
    const image = { ...base, SQLITE_DEFAULT_PATH: "/data/palette-chatops.sqlite" };
    expect(loadConfig(image).stateDb).toEqual({
      kind: "sqlite",
      path: "/data/palette-chatops.sqlite",
    });
    // DATABASE_URL given to the image means PostgreSQL, whatever the image's default
    expect(loadConfig({ ...image, DATABASE_URL: url }).stateDb.kind).toBe("postgres");
    expect(loadConfig({ ...image, STATE_DB: "/x/y.db" }).stateDb).toEqual({
      kind: "sqlite",
      path: "/x/y.db",
    });
    expect(loadConfig(base).stateDb).toEqual({
      kind: "sqlite",
      path: "./data/palette-chatops.sqlite",
    });
  });

  it("never prints the URL: the config inspected or as JSON shows it redacted", () => {
    const config = loadConfig({ ...base, DATABASE_URL: url });
    const printed = `${inspect(config, { depth: 10 })}${JSON.stringify(config)}`;
    expect(printed).not.toContain("pg-password-value");
    expect(printed).not.toContain("db.internal");
  });

  it("refuses a URL that does not parse or is not PostgreSQL, without echoing it", () => {
    for (const [variable, value] of [
      ["DATABASE_URL", "postgres://bot:pg-password-value@[broken"],
      ["DATABASE_URL", "mysql://bot:pg-password-value@db/x"],
      ["STATE_DB", "postgresql://bot:pg-password-value@"],
    ] as const) {
      const error = errorOf({ ...base, [variable]: value });
      expect(error.variable).toBe(variable);
      expect(error.message).toMatch(/postgres:\/\/ or postgresql:\/\//);
      expect(error.message).not.toContain("pg-password-value");
    }
  });
});

describe("LEADER_LEASE_TTL_MS and LEADER_RENEW_MS", () => {
  it("default to a 15 s lease renewed every 5 s", () => {
    expect(loadConfig(base).leader).toEqual({ ttlMs: 15_000, renewEveryMs: 5_000 });
    expect(
      loadConfig({ ...base, LEADER_LEASE_TTL_MS: "30000", LEADER_RENEW_MS: "10000" }).leader,
    ).toEqual({ ttlMs: 30_000, renewEveryMs: 10_000 });
  });

  it("refuses a renewal interval of half the lease or more, naming the variable", () => {
    const error = errorOf({ ...base, LEADER_LEASE_TTL_MS: "10000", LEADER_RENEW_MS: "5000" });
    expect(error.variable).toBe("LEADER_RENEW_MS");
    expect(error.message).toContain("under half of LEADER_LEASE_TTL_MS (10000)");
  });

  it("refuses what is not a whole number of milliseconds", () => {
    expect(errorOf({ ...base, LEADER_LEASE_TTL_MS: "15s" }).variable).toBe("LEADER_LEASE_TTL_MS");
    expect(errorOf({ ...base, LEADER_RENEW_MS: "0" }).variable).toBe("LEADER_RENEW_MS");
  });
});

describe("identity", () => {
  const key = Buffer.alloc(32, 7).toString("base64");

  it("is the service account's by default, with no key needed", () => {
    expect(loadConfig(base).identity).toEqual({ mode: "service", method: "key" });
  });

  it("takes linked and strict with a 32-byte key, kept as a Secret", () => {
    expect(loadConfig({ ...base, IDENTITY: "strict", IDENTITY_KEY: key }).identity.mode).toBe(
      "strict",
    );
    const identity = loadConfig({ ...base, IDENTITY: "linked", IDENTITY_KEY: key }).identity;
    expect(identity.mode).toBe("linked");
    expect(identity.keys?.current.reveal()).toBe(key);
    expect(JSON.stringify(identity)).not.toContain(key);
  });

  it("refuses linked or strict without a key and a key of the wrong size; takes email", () => {
    expect(errorOf({ ...base, IDENTITY: "linked" }).message).toMatch(/^IDENTITY_KEY: required/);
    expect(errorOf({ ...base, IDENTITY: "linked", IDENTITY_KEY: "c2hvcnQ=" }).message).toMatch(
      /^IDENTITY_KEY: wants 32 random bytes/,
    );
    expect(errorOf({ ...base, IDENTITY: "strict" }).message).toMatch(/^IDENTITY_KEY: required/);
    expect(
      loadConfig({ ...base, IDENTITY: "linked", LINK_METHOD: "email", IDENTITY_KEY: key }).identity
        .method,
    ).toBe("email");
    expect(errorOf({ ...base, IDENTITY: "everyone" }).message).toMatch(/^IDENTITY: wants one of/);
  });
});
