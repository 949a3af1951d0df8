import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadConfig } from "../../../src/config.ts";
import { readFixtureJson } from "../../support/fixtures.ts";

const schema = readFixtureJson<object>("slack", "manifest.schema.json");
// The upstream schema carries non-standard keywords (regex, requires, _note): strict off.
const validate = new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(
  schema,
);

interface Manifest {
  display_information: { name: string };
  features: {
    app_home: { home_tab_enabled: boolean; messages_tab_read_only_enabled?: boolean };
    unfurl_domains?: string[];
    bot_user: { display_name: string };
    shortcuts?: Array<{ type: string; callback_id: string }>;
    slash_commands: Array<{
      command: string;
      url?: string;
      usage_hint?: string;
      description: string;
    }>;
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: {
    socket_mode_enabled: boolean;
    org_deploy_enabled: boolean;
    event_subscriptions: { bot_events: string[]; request_url?: string };
    interactivity: { is_enabled: boolean; request_url?: string; message_menu_options_url?: string };
  };
}

const load = (file: string) => parse(readFileSync(join(process.cwd(), file), "utf8")) as Manifest;

const SCOPES = [
  "app_mentions:read",
  "channels:history",
  "channels:read",
  "chat:write",
  "commands",
  "files:write",
  "groups:history",
  "groups:read",
  "im:history",
  "im:write",
  "links:read",
  "links:write",
  "reactions:write",
  "usergroups:read",
  "users:read",
  "users:read.email",
];

describe.each(["manifest.yml", "manifest.http.yml"])("%s", (file) => {
  const manifest = load(file);

  it("validates against Slack's manifest schema", () => {
    const ok = validate(manifest);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it("declares /palette, the bot user, the home tab and exactly the scopes the bot uses", () => {
    expect(manifest.display_information.name).toBe("Palette");
    expect(manifest.features.bot_user.display_name).toBe("Palette");
    const [command, ...others] = manifest.features.slash_commands;
    expect(others).toEqual([]);
    expect(command?.command).toBe("/palette");
    expect(command?.usage_hint).toContain("clusters");
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.settings.event_subscriptions.bot_events).toContain("app_home_opened");
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.org_deploy_enabled).toBe(false);
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual(SCOPES);
    expect(manifest.oauth_config.scopes.bot).not.toContain("chat:write.public");
  });

  it("hears mentions, DMs and console links, and lets people write in the messages tab", () => {
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(
      expect.arrayContaining(["app_mention", "message.im", "link_shared"]),
    );
    expect(manifest.features.app_home.messages_tab_read_only_enabled).toBe(false);
    // the default PALETTE_CONSOLE_URL's host, the links src/conversation/console-link.ts reads
    expect(manifest.features.unfurl_domains).toEqual([
      new URL(loadConfig({ PALETTE_API_KEY: "k" }, { requireSlack: false }).palette.consoleUrl)
        .host,
    ]);
  });

  it("offers the Launch cluster shortcut the launch listener handles", () => {
    expect(manifest.features.shortcuts).toEqual([
      expect.objectContaining({ type: "global", callback_id: "launch_cluster" }),
    ]);
  });
});

describe("the two variants", () => {
  it("Socket Mode by default, with no request URLs", () => {
    const manifest = load("manifest.yml");
    expect(manifest.settings.socket_mode_enabled).toBe(true);
    expect(manifest.features.slash_commands[0]?.url).toBeUndefined();
    expect(manifest.settings.interactivity.request_url).toBeUndefined();
  });

  it("HTTP mode points every request URL at /slack/events", () => {
    const manifest = load("manifest.http.yml");
    expect(manifest.settings.socket_mode_enabled).toBe(false);
    const urls = [
      manifest.features.slash_commands[0]?.url,
      manifest.settings.event_subscriptions.request_url,
      manifest.settings.interactivity.request_url,
      manifest.settings.interactivity.message_menu_options_url,
    ];
    for (const url of urls) expect(url).toMatch(/^https:\/\/[^/]+\/slack\/events$/);
  });

  it("differ only in mode and URLs", () => {
    const strip = (manifest: Manifest) => {
      const copy = structuredClone(manifest);
      const settings: Partial<Manifest["settings"]> = copy.settings;
      delete settings.socket_mode_enabled;
      delete copy.settings.event_subscriptions.request_url;
      delete copy.settings.interactivity.request_url;
      delete copy.settings.interactivity.message_menu_options_url;
      for (const command of copy.features.slash_commands) delete command.url;
      return copy;
    };
    expect(strip(load("manifest.http.yml"))).toEqual(strip(load("manifest.yml")));
  });

  it("the validator rejects a broken manifest (the check can fail)", () => {
    const broken = load("manifest.yml") as unknown as Record<string, unknown>;
    broken.features = { slash_commands: [{ command: "palette" }] };
    expect(validate(broken)).toBe(false);
  });
});
