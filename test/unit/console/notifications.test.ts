import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/clock.ts";
import { createConsolePoster } from "../../../src/console/notifications.ts";
import { silentLogger } from "../../../src/log.ts";
import type { CardPayload } from "../../../src/model/notification.ts";
import { createSender } from "../../../src/notify/delivery/outbox-sender.ts";
import { OutboxStore } from "../../../src/store/outbox.ts";
import { openMemoryDb } from "../../support/store.ts";

const card = (state: string, line: string): CardPayload => ({
  cluster: { uid: "u1", name: "web-prod", project: "p", state, health: "Healthy", tags: [] },
  kinds: ["state"],
  lines: [line],
  worse: false,
  alerts: [],
  at: "2026-01-01T00:00:00.000Z",
});

describe("console notifications", () => {
  it("prints the card, then the edit and the thread line, as text", async () => {
    const out: string[] = [];
    const db = await openMemoryDb();
    const clock = new ManualClock();
    const sender = createSender({
      db,
      slack: createConsolePoster((text) => out.push(text)),
      clock,
      logger: silentLogger,
      sleep: async (ms) => clock.advance(ms),
    });
    const outbox = new OutboxStore(db);
    await outbox.add(
      {
        channel: "console",
        kind: "card",
        clusterUid: "u1",
        payload: card("Upgrading", "State Running → Upgrading"),
      },
      "t",
    );
    await outbox.add(
      {
        channel: "console",
        kind: "card",
        clusterUid: "u1",
        payload: card("Running", "State Upgrading → Running"),
      },
      "t",
    );
    await sender.drainAll();
    const text = out.join("");
    expect(text).toContain("web-prod");
    expect(text).toContain("card updated");
    expect(text).toContain("↳ thread");
    expect(text).toContain("Upgrading → Running");
    expect(text).not.toContain('"type"');
  });
});
