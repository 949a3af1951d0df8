import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  OPTIONS_BUDGET_MS,
  SLOW_OPTION_TEXT,
  SLOW_OPTION_VALUE,
} from "../../src/slack/listeners/options/launch-field.ts";
import {
  type LaunchHarness,
  type OpenView,
  startLaunchHarness,
} from "../support/launch-harness.ts";

/**
 * A look-up answers within its budget whatever Palette does. The budget is shortened here so the
 * test waits on no wall clock; that the real budget fits Slack's 3 s is checked on the constant,
 * and ackWithin itself is unit-tested with fake timers (test/unit/slack/ack.test.ts).
 */
const TEST_BUDGET_MS = 100;

describe("launch look-ups against a slow Palette", () => {
  let h: LaunchHarness;
  let awsForm: OpenView;

  beforeAll(async () => {
    h = await startLaunchHarness({ optionsBudgetMs: TEST_BUDGET_MS });
    const { view } = await h.openModal();
    awsForm = await h.pickProvider(view, "aws");
  });
  afterAll(async () => {
    await h?.close();
  });

  it("leaves Slack's 3 s with room to spare", () => {
    expect(OPTIONS_BUDGET_MS).toBeLessThanOrEqual(2_500);
  });

  it("answers a 'Palette is slow' option when Palette outlasts the budget, then works again", async () => {
    h.sim.control.addFault({
      pathPrefix: "/v1/cloudaccounts",
      kind: "latency",
      latencyMs: 1_000,
      times: 1,
    });
    const options = await h.suggest(awsForm, "account", "");
    expect(options).toEqual([{ value: SLOW_OPTION_VALUE, text: SLOW_OPTION_TEXT }]);
    // the fault is spent: typing again lists the accounts
    const again = await h.suggest(awsForm, "account", "");
    expect(again.length).toBeGreaterThan(0);
    expect(again.every((o) => o.value !== SLOW_OPTION_VALUE)).toBe(true);
  });

  it("acknowledges a look-up of another modal with no options, without asking Palette", async () => {
    const before = h.sim.control.requests().length;
    const options = await h.suggest(
      { ...awsForm, callback_id: "someone_elses_modal" },
      "account",
      "",
    );
    expect(options).toEqual([]);
    expect(h.sim.control.requests().length).toBe(before);
  });
});
