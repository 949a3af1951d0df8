import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { SUGGESTED_PROMPTS } from "../../../src/slack/listeners/events/assistant-view.ts";
import { readFixtureJson } from "../../support/fixtures.ts";

const schema = readFixtureJson<object>("slack", "manifest.schema.json");
// The upstream schema carries non-standard keywords (regex, requires, _note): strict off.
const validate = new Ajv({ strict: false, allErrors: true, validateFormats: false }).compile(
  schema,
);

interface Manifest {
  features: {
    assistant_view?: {
      assistant_description: string;
      suggested_prompts?: Array<{ title: string; message: string }>;
    };
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: { event_subscriptions: { bot_events: string[] } };
}

const load = (file: string) => parse(readFileSync(join(process.cwd(), file), "utf8")) as Manifest;

describe("manifest.assistant.yml (the app with the grounded assistant)", () => {
  const manifest = load("manifest.assistant.yml");
  const plain = load("manifest.yml");

  it("validates against Slack's manifest schema", () => {
    const ok = validate(manifest);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it("is manifest.yml plus the assistant view, assistant:write and the assistant's events", () => {
    expect(manifest.features.assistant_view?.assistant_description).toMatch(/never changes/);
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual(
      [...plain.oauth_config.scopes.bot, "assistant:write"].sort(),
    );
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual(
      [
        ...plain.settings.event_subscriptions.bot_events,
        "assistant_thread_started",
        "assistant_thread_context_changed",
      ].sort(),
    );
  });

  it("suggests prompts the bot's own thread-start prompts also offer", () => {
    for (const prompt of manifest.features.assistant_view?.suggested_prompts ?? []) {
      expect(SUGGESTED_PROMPTS).toContainEqual(prompt);
    }
  });
});
