import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  SLOW_OPTION_TEXT,
  SLOW_OPTION_VALUE,
} from "../../src/slack/listeners/options/launch-field.ts";
import {
  type LaunchHarness,
  type OpenView,
  startLaunchHarness,
} from "../support/launch-harness.ts";

describe("launch look-ups against a slow Palette", () => {
  let h: LaunchHarness;
  let awsForm: OpenView;

  beforeAll(async () => {
    h = await startLaunchHarness();
    const { view } = await h.openModal();
    awsForm = await h.pickProvider(view, "aws");
  });
  afterAll(async () => {
    await h?.close();
  });

  it("answers within Slack's 3 s with a 'Palette is slow' option, then works again", async () => {
    h.sim.control.addFault({
      pathPrefix: "/v1/cloudaccounts",
      kind: "latency",
      latencyMs: 4_000,
      times: 1,
    });
    const started = performance.now();
    const options = await h.suggest(awsForm, "account", "");
    const tookMs = performance.now() - started;
    expect(tookMs).toBeLessThan(3_000);
    expect(options).toEqual([{ value: SLOW_OPTION_VALUE, text: SLOW_OPTION_TEXT }]);
    // the fault is spent: typing again lists the accounts
    const again = await h.suggest(awsForm, "account", "");
    expect(again.length).toBeGreaterThan(0);
    expect(again.every((o) => o.value !== SLOW_OPTION_VALUE)).toBe(true);
  });

  it("acknowledges a look-up of another modal with no options, at once", async () => {
    const started = performance.now();
    const options = await h.suggest(
      { ...awsForm, callback_id: "someone_elses_modal" },
      "account",
      "",
    );
    expect(options).toEqual([]);
    expect(performance.now() - started).toBeLessThan(1_500);
  });
});
