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
    [key: string]: unknown;
    assistant_view?: {
      assistant_description: string;
      suggested_prompts?: Array<{ title: string; message: string }>;
    };
  };
  oauth_config: { scopes: { bot: string[] } };
  settings: { [key: string]: unknown; event_subscriptions: { bot_events: string[] } };
}

const load = (file: string) => parse(readFileSync(join(process.cwd(), file), "utf8")) as Manifest;

/**
 * One assistant manifest per mode (issue 38 item 6): each is its mode's plain manifest plus the
 * same assistant parts, so the two cannot drift apart.
 */
const MODES = [
  { mode: "Socket Mode", file: "manifest.assistant.yml", plainFile: "manifest.yml" },
  { mode: "HTTP mode", file: "manifest.assistant.http.yml", plainFile: "manifest.http.yml" },
] as const;

/** The manifest without what the assistant adds: its view, scope and events. */
function withoutAssistant(manifest: Manifest): Manifest {
  const { assistant_view: _, ...features } = manifest.features;
  return {
    ...manifest,
    features,
    oauth_config: {
      scopes: { bot: manifest.oauth_config.scopes.bot.filter((s) => s !== "assistant:write") },
    },
    settings: {
      ...manifest.settings,
      event_subscriptions: {
        ...manifest.settings.event_subscriptions,
        bot_events: manifest.settings.event_subscriptions.bot_events.filter(
          (event) => !event.startsWith("assistant_thread_"),
        ),
      },
    },
  };
}

describe.each(MODES)(
  "$file (the app with the grounded assistant, $mode)",
  ({ file, plainFile }) => {
    const manifest = load(file);
    const plain = load(plainFile);

    it("validates against Slack's manifest schema", () => {
      const ok = validate(manifest);
      expect(validate.errors ?? []).toEqual([]);
      expect(ok).toBe(true);
    });

    it(`is ${plainFile} plus the assistant view, assistant:write and the assistant's events`, () => {
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
      // and nothing else differs: the mode's URLs, Socket Mode's switch, every other setting
      expect(withoutAssistant(manifest)).toEqual(plain);
    });

    it("suggests prompts the bot's own thread-start prompts also offer, as the other mode's does", () => {
      for (const prompt of manifest.features.assistant_view?.suggested_prompts ?? []) {
        expect(SUGGESTED_PROMPTS).toContainEqual(prompt);
      }
      expect(manifest.features.assistant_view).toEqual(
        load("manifest.assistant.yml").features.assistant_view,
      );
    });
  },
);
