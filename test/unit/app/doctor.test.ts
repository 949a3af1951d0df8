import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { missingRights, requiredRights } from "../../../src/app/doctor-palette.ts";
import { reasonOf, SKEW_WARN_MS, skewLine } from "../../../src/app/doctor-probe.ts";
import { type CheckLine, renderDoctor, verdictOf } from "../../../src/app/doctor-report.ts";
import { BOT_SCOPES, missingScopes } from "../../../src/app/doctor-slack.ts";
import { loadConfig } from "../../../src/config.ts";

/** The doctor's pure parts: the table, the verdict, scopes, clock skew, and the rights. */

const ROOT = join(import.meta.dirname, "..", "..", "..");
const BASE = {
  SLACK_BOT_TOKEN: "xoxb-1",
  SLACK_APP_TOKEN: "xapp-1",
  PALETTE_API_KEY: "key",
  PALETTE_PROJECTS: "p1,p2",
};

describe("the doctor's table", () => {
  const lines: CheckLine[] = [
    { check: "config", status: "pass", result: "parsed" },
    { check: "slack.auth", status: "fail", result: "Slack refused\nFAIL  fake", fix: "set it" },
    { check: "clock.slack", status: "warn", result: "off", fix: "sync" },
    { check: "palette.refresh", status: "skip", result: "not needed", fix: "never shown" },
  ];

  it("fails when a check fails, and not for warnings or skips", () => {
    expect(verdictOf(lines)).toEqual({ exitCode: 1, failing: ["slack.auth"], warnings: 1 });
    expect(verdictOf(lines.filter((line) => line.status !== "fail")).exitCode).toBe(0);
  });

  it("writes plain words for a pipe and emoji for a terminal, one line per check", () => {
    const plain = renderDoctor(lines, { tty: false });
    expect(plain).toMatch(/^PASS {2}config {11}parsed$/m);
    // an answer's line break cannot forge another check's line
    expect(plain).toContain("FAIL  slack.auth       Slack refused FAIL  fake → set it");
    expect(plain).not.toMatch(/^FAIL {2}fake/m);
    expect(plain).not.toContain("never shown");
    expect(plain).not.toMatch(/[✅❌]/);
    expect(plain.trim().split("\n").at(-1)).toBe(
      "The bot cannot run as configured: slack.auth failed (1 warning).",
    );
    expect(renderDoctor(lines, { tty: true })).toMatch(/^❌ FAIL {2}slack\.auth/m);
    const forged = renderDoctor(
      [{ check: "palette.login", status: "fail", result: "refused \u001b[2Jcleared\u0007" }],
      { tty: true },
    );
    expect(forged).toContain("refused [2Jcleared");
    expect(forged).not.toContain("\u001b");
    expect(forged).not.toContain("\u0007");
  });
});

describe("Slack scopes", () => {
  it("asks for exactly manifest.yml's bot scopes", () => {
    const manifest = parse(readFileSync(join(ROOT, "manifest.yml"), "utf8")) as {
      oauth_config: { scopes: { bot: string[] } };
    };
    expect([...BOT_SCOPES].sort()).toEqual([...manifest.oauth_config.scopes.bot].sort());
  });

  it("names the scopes Slack's x-oauth-scopes header lacks", () => {
    expect(missingScopes(BOT_SCOPES.join(","))).toEqual([]);
    expect(missingScopes("commands, chat:write", ["commands", "chat:write", "im:write"])).toEqual([
      "im:write",
    ]);
    expect(missingScopes("", ["commands"])).toEqual(["commands"]);
  });

  it("names the history scopes exactly once needs when a token from before them lacks them", () => {
    const before = BOT_SCOPES.filter((s) => s !== "channels:history" && s !== "groups:history");
    expect(missingScopes(before.join(","))).toEqual(["channels:history", "groups:history"]);
  });
});

describe("why a call failed", () => {
  it("gives the system's code, the host, or fetch's own cause", () => {
    const refused = Object.assign(new Error("connect"), { code: "ECONNREFUSED" });
    expect(reasonOf(new TypeError("fetch failed", { cause: refused }), "x")).toBe("ECONNREFUSED");
    const unknown = Object.assign(new Error("dns"), { code: "ENOTFOUND", hostname: "p.invalid" });
    expect(reasonOf(new TypeError("fetch failed", { cause: unknown }), "x")).toBe(
      "ENOTFOUND (p.invalid)",
    );
    expect(reasonOf(new TypeError("fetch failed", { cause: new Error("bad port") }), "x")).toBe(
      "fetch failed: bad port",
    );
    expect(reasonOf("thrown string", "Slack auth.test")).toBe("Slack auth.test failed");
  });
});

describe("clock skew", () => {
  const at = Date.UTC(2026, 10, 28, 12);
  it("reads a Date header's one-second truncation as no skew", () => {
    const line = skewLine(
      "clock.slack",
      "Slack",
      { server: at, receivedAt: at + 999 },
      {
        httpMode: false,
      },
    );
    expect(line).toMatchObject({ status: "pass", result: expect.stringContaining("agrees") });
  });

  it("warns over the bound, and fails past 5 minutes only for Slack in HTTP mode", () => {
    const off = (ms: number, check = "clock.slack", httpMode = true) =>
      skewLine(check, "X", { server: at, receivedAt: at + ms }, { httpMode }).status;
    expect(off(SKEW_WARN_MS)).toBe("pass");
    expect(off(SKEW_WARN_MS + 1_001)).toBe("warn");
    expect(off(-6 * 60_000)).toBe("fail");
    expect(off(-6 * 60_000, "clock.palette")).toBe("warn");
    expect(off(-6 * 60_000, "clock.slack", false)).toBe("warn");
    expect(skewLine("clock.slack", "Slack", undefined, { httpMode: true }).status).toBe("skip");
  });
});

describe("the rights the enabled verbs need", () => {
  it("asks only for what the configuration turns on", () => {
    const readOnly = requiredRights(loadConfig(BASE));
    expect(readOnly.map((right) => right.permission)).toEqual(["cluster.list", "cluster.get"]);
    const all = requiredRights(
      loadConfig({
        ...BASE,
        ALLOW_LAUNCH: "*",
        ALLOW_KUBECONFIG: "*",
        ALLOW_SCALE: "*",
        ALLOW_DELETE: "*",
      }),
    );
    expect(all).toEqual(
      expect.arrayContaining([
        { for: "ALLOW_LAUNCH", permission: "cluster.create" },
        { for: "ALLOW_KUBECONFIG", permission: "cluster.adminKubeconfigDownload" },
        { for: "ALLOW_SCALE", permission: "cluster.update" },
        { for: "ALLOW_DELETE", permission: "cluster.delete" },
      ]),
    );
  });

  it("leaves launch and kubeconfig to the person's own user with IDENTITY=linked", () => {
    const linked = requiredRights(
      loadConfig({
        ...BASE,
        ALLOW_LAUNCH: "*",
        ALLOW_KUBECONFIG: "*",
        IDENTITY: "linked",
        IDENTITY_KEY: Buffer.alloc(32, 1).toString("base64"),
      }),
    );
    expect(linked.map((right) => right.for)).not.toContain("ALLOW_LAUNCH");
    expect(linked.map((right) => right.for)).not.toContain("ALLOW_KUBECONFIG");
  });

  it("finds per project what no role grants; a tenant role counts everywhere; Tenant Admin has all", () => {
    const required = [
      { for: "reads", permission: "cluster.list" },
      { for: "ALLOW_LAUNCH", permission: "cluster.create" },
    ];
    const viewer = { name: "Project Viewer", permissions: ["cluster.list"] };
    const creator = { name: "Creator", permissions: ["cluster.create"] };
    const perProject = new Map([
      ["p1", [viewer]],
      ["p2", [viewer, creator]],
    ]);
    expect(missingRights(required, [], perProject, ["p1", "p2", "p3"])).toEqual(
      new Map([
        ["p1", [required[1]]],
        ["p3", required],
      ]),
    );
    expect(missingRights(required, [creator], perProject, ["p1", "p2"]).size).toBe(0);
    expect(
      missingRights(required, [{ name: "Tenant Admin", permissions: [] }], perProject, ["p3"]).size,
    ).toBe(0);
  });
});
