import { describe, expect, it } from "vitest";
import { readMuteForm } from "../../../src/slack/mute-form.ts";
import { checkModalLimits } from "../../../src/views/limits.ts";
import { MUTE_FIELDS, muteModal } from "../../../src/views/mute-modal.ts";

const NOW = Date.UTC(2026, 10, 23, 12);
const DAY = 86_400_000;

/** Slack's `view.state.values` for the mute modal, as a submission carries it. */
function values(length?: string, date?: string | null, reason?: string | null) {
  return {
    [MUTE_FIELDS.length]: {
      [MUTE_FIELDS.length]: {
        type: "radio_buttons",
        selected_option: length
          ? { text: { type: "plain_text", text: length }, value: length }
          : null,
      },
    },
    [MUTE_FIELDS.until]: {
      [MUTE_FIELDS.until]: { type: "datepicker", selected_date: date ?? null },
    },
    [MUTE_FIELDS.reason]: {
      [MUTE_FIELDS.reason]: { type: "plain_text_input", value: reason ?? null },
    },
  };
}

describe("the mute modal", () => {
  it("is within Slack's limits, escapes the cluster's name, and starts at one day", () => {
    const view = muteModal({ clusterName: "<!channel> web", metadata: '{"ch":"C1","c":"u1"}' });
    expect(checkModalLimits(view)).toEqual([]);
    expect(JSON.stringify(view)).toContain("&lt;!channel&gt; web");
    expect(JSON.stringify(view.blocks)).toContain('"initial_option"');
  });

  it("reads one day, seven days and a reason", () => {
    expect(readMuteForm(values("1d", null, "  maintenance  "), NOW)).toEqual({
      ok: true,
      untilMs: NOW + DAY,
      reason: "maintenance",
    });
    expect(readMuteForm(values("7d"), NOW)).toEqual({ ok: true, untilMs: NOW + 7 * DAY });
  });

  it("reads a date: the mute ends as that day begins (UTC)", () => {
    expect(readMuteForm(values("until", "2026-12-01"), NOW)).toEqual({
      ok: true,
      untilMs: Date.UTC(2026, 11, 1),
    });
  });

  it("puts a problem under the field that has it", () => {
    expect(readMuteForm(values("until", "2026-11-01"), NOW)).toEqual({
      ok: false,
      errors: { [MUTE_FIELDS.until]: expect.stringMatching(/after today/) },
    });
    expect(readMuteForm(values("until", null), NOW)).toEqual({
      ok: false,
      errors: { [MUTE_FIELDS.until]: expect.stringMatching(/Pick the day/) },
    });
    expect(readMuteForm(values(undefined), NOW)).toEqual({
      ok: false,
      errors: { [MUTE_FIELDS.length]: expect.any(String) },
    });
    expect(readMuteForm(values("1d", null, "x".repeat(201)), NOW)).toEqual({
      ok: false,
      errors: { [MUTE_FIELDS.reason]: expect.stringMatching(/200/) },
    });
    expect(readMuteForm({ junk: true }, NOW).ok).toBe(false);
  });
});
