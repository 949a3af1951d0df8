import { afterEach, describe, expect, it } from "vitest";
import { homeSources } from "../../../src/app/home-sources.ts";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";
import { homeInput } from "../../../src/slack/home-input.ts";
import { HoldStore } from "../../../src/store/holds.ts";
import type { SqlDb } from "../../../src/store/sql.ts";
import { SubscriptionStore } from "../../../src/store/subscriptions.ts";
import { FakePalette } from "../../support/fake-palette.ts";
import { openMemoryDb } from "../../support/store.ts";

const T0 = Date.parse("2026-01-01T12:00:00.000Z");
let db: SqlDb | undefined;
afterEach(() => db?.close());

describe("the App Home's mutes and snoozes", () => {
  it("shows the running holds of the user's channels, with one membership walk for both lists", async () => {
    db = await openMemoryDb();
    const clock = new ManualClock(T0);
    await new SubscriptionStore(db, clock).add({ channel: "C1", kind: "all", createdBy: "U1" });
    const holds = new HoldStore(db);
    const hold = (channel: string, uid: string, kind: "snooze" | "mute", untilMs: number) =>
      holds.put({
        channel,
        clusterUid: uid,
        kind,
        clusterName: `${uid}-name`,
        projectUid: "p-1",
        userId: "U1",
        reason: kind === "mute" ? "window" : undefined,
        startedAt: T0,
        untilMs,
      });
    await hold("C1", "a", "mute", T0 + 86_400_000);
    await hold("C1", "b", "snooze", T0 + 3_600_000);
    await hold("C1", "c", "snooze", T0 - 1); // run out: the next poll ends it, the home no longer shows it
    await hold("C7", "d", "mute", T0 + 3_600_000); // a channel the user is not in
    let walks = 0;
    const slack = {
      users: {
        conversations: async () => {
          walks += 1;
          return { ok: true, channels: [{ id: "C1" }] };
        },
      },
    };
    const sources = homeSources({
      poller: { lastSnapshot: async () => ({ clusters: [] }) },
      palette: new FakePalette([]),
      db,
      projects: [],
      clock,
      slack: slack as never,
    });
    const input = await homeInput("W111", {
      ...sources,
      policy: { allows: async () => true, grantHint: () => "" },
      consoleUrl: "https://console.example.com/",
      clock,
      logger: silentLogger,
    });
    expect(input.holds).toEqual([
      {
        channel: "C1",
        kind: "snooze",
        clusterName: "b-name",
        userId: "U1",
        reason: undefined,
        untilMs: T0 + 3_600_000,
      },
      {
        channel: "C1",
        kind: "mute",
        clusterName: "a-name",
        userId: "U1",
        reason: "window",
        untilMs: T0 + 86_400_000,
      },
    ]);
    expect(input.subscriptions).toHaveLength(1);
    expect(walks).toBe(1);
  });
});
