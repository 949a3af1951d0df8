import { describe, expect, it } from "vitest";
import type { CardPayload } from "../../../src/model/notification.ts";
import {
  ackAlreadyTaken,
  ackRefused,
  ackThreadLine,
  ackUnknownCard,
  recoveryThreadLine,
} from "../../../src/views/card-ack.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";

const evil = "<!channel> & <@U123> *bold*";
const recovered: CardPayload = {
  cluster: { uid: "u1", name: evil, project: "p1", state: "Running", health: "Healthy", tags: [] },
  previous: { state: "Running", health: "UnHealthy" },
  kinds: ["health-recovered"],
  lines: [`Health recovered: ${evil}`],
  worse: false,
  alerts: [],
  at: "2026-01-01T12:00:00.000Z",
};
const ack = { userId: "U0ONCALL", at: Date.UTC(2026, 0, 1, 14, 2) };

describe("acknowledgement views", () => {
  it("the thread line says who acknowledged it, with a time each reader sees in their zone", () => {
    const view = ackThreadLine(ack);
    const text = JSON.stringify(view.blocks);
    expect(text).toContain(":eyes: Acknowledged by <@U0ONCALL>");
    expect(text).toContain("<!date^");
    expect(view.text).toContain("Acknowledged by <@U0ONCALL>");
  });

  it("the recovery line names who had it, and escapes the cluster's own text", () => {
    const view = recoveryThreadLine(recovered, ack);
    const text = JSON.stringify(view.blocks);
    expect(text).toContain("Recovered; <@U0ONCALL> had acknowledged it");
    expect(text).not.toContain("<!channel>");
    expect(text).not.toContain("<@U123>");
    expect(view.text).toContain("<@U0ONCALL> had acknowledged it");
  });

  it("refusals say what to do, and a taken card says by whom", () => {
    expect(JSON.stringify(ackRefused("Ask an admin to add you to `ALLOW_ACK`.").blocks)).toContain(
      "ALLOW_ACK",
    );
    const taken = JSON.stringify(ackAlreadyTaken(ack, "U0ONCALL").blocks);
    expect(taken).toContain("You acknowledged");
    const other = JSON.stringify(ackAlreadyTaken(ack, "U0OTHER").blocks);
    expect(other).toContain("Already acknowledged by <@U0ONCALL>");
    expect(JSON.stringify(ackUnknownCard().blocks)).toMatch(/no longer/i);
  });

  it("every message stays within Slack's limits with hostile input", () => {
    const long: CardPayload = { ...recovered, lines: ["x".repeat(5000), evil.repeat(300)] };
    for (const view of [
      ackThreadLine(ack),
      recoveryThreadLine(long, ack),
      recoveryThreadLine(recovered, { userId: evil, at: 0 }),
      ackRefused(evil.repeat(500)),
      ackAlreadyTaken({ userId: evil, at: 0 }, "U1"),
      ackUnknownCard(),
    ]) {
      expect(checkSlackLimits(view.blocks)).toEqual([]);
      expect(view.text.length).toBeLessThanOrEqual(4000);
    }
  });
});
