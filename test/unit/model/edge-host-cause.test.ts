import { describe, expect, it } from "vitest";
import type { EdgeHostRecord } from "../../../src/model/edge-host.ts";
import { edgeHostCause, edgeRecordEntries } from "../../../src/model/edge-host-cause.ts";
import type { TimelineEntry } from "../../../src/model/why.ts";
import { edgeCauseLine } from "../../../src/views/why-edge.ts";

const T = Date.UTC(2026, 10, 25, 2, 0);
const MIN = 60_000;

const record = (over: Partial<EdgeHostRecord> = {}): EdgeHostRecord => ({
  uid: "h1",
  scope: "p1",
  projectUid: "p1",
  name: "store-0142-h000",
  tags: [],
  state: "in-use",
  health: "unhealthy",
  firstSeenAt: T - 600 * MIN,
  seenAt: T + 20 * MIN,
  unhealthySince: T + 14 * MIN,
  lastSeenHealthy: T + 13 * MIN,
  told: "unhealthy",
  ...over,
});

const event = (
  at: number,
  what: string,
  severity: TimelineEntry["severity"],
  message = "",
): TimelineEntry => ({
  at,
  source: "event",
  what,
  message,
  severity,
  write: false,
});

const audit = (at: number, what: string, message: string): TimelineEntry => ({
  at,
  source: "audit",
  who: { kind: "palette", name: "ops@example.com" },
  what,
  message,
  write: true,
});

describe("edgeHostCause", () => {
  it("a healthy, in-use host has nothing to explain", () => {
    const cause = edgeHostCause({
      now: { state: "in-use", health: "healthy" },
      record: record(),
      hostEntries: [],
    });
    expect(cause).toEqual({ kind: "no-trouble", state: "in-use", health: "healthy" });
  });

  it("unhealthy: the bot's 'since', the last warning event, a write within the hour before and the cluster's trouble", () => {
    const cause = edgeHostCause({
      now: { state: "in-use", health: "unhealthy", message: "lost" },
      record: record(),
      hostEntries: [
        event(T + 16 * MIN, "EdgeHostInfo", "normal"),
        event(T + 13.5 * MIN, "EdgeHostUnhealthy", "warning", "heartbeat missed"),
        audit(T + 10 * MIN, "update", "tags updated"),
        audit(T - 2 * 60 * MIN, "update", "too old to be the cause"),
      ],
      cluster: {
        name: "store-0142",
        entries: [event(T + 16 * MIN, "ClusterUnhealthy", "warning")],
      },
    });
    expect(cause).toMatchObject({
      kind: "dark",
      trouble: "unhealthy",
      botSince: T + 14 * MIN,
      lastSeenHealthy: T + 13 * MIN,
      noRecord: false,
      lastEvent: { what: "EdgeHostUnhealthy" },
      write: { message: "tags updated" },
      cluster: { name: "store-0142", trouble: { what: "ClusterUnhealthy", at: T + 16 * MIN } },
    });
    const line = edgeCauseLine(cause, "UTC");
    expect(line).toBe(
      ":mag: *Likely cause:* unhealthy since `2026-11-25 02:14`, the bot saw it, last seen healthy `2026-11-25 02:13`; last event *EdgeHostUnhealthy* at `2026-11-25 02:13` — heartbeat missed; before it, *update* by `ops@example.com` at `2026-11-25 02:10` — tags updated; cluster `store-0142` went *ClusterUnhealthy* at `2026-11-25 02:16`.",
    );
  });

  it("no record by the bot: says so, and dates the trouble by the event that began it", () => {
    const cause = edgeHostCause({
      now: { health: "unhealthy" },
      record: undefined,
      hostEntries: [
        event(T, "EdgeHostUnhealthy", "warning"),
        audit(T - 5 * MIN, "action", "reset"),
      ],
    });
    expect(cause).toMatchObject({ kind: "dark", noRecord: true, write: { message: "reset" } });
    expect(cause).not.toHaveProperty("botSince");
    expect(edgeCauseLine(cause, "UTC")).toContain("the bot has no record of its health");
  });

  it("unpaired is trouble whatever the health; Palette's message stands in when there is no event", () => {
    const cause = edgeHostCause({
      now: { state: "unpaired", health: "healthy", message: "reset <!channel>" },
      record: record({ unhealthySince: undefined }),
      hostEntries: [],
    });
    expect(cause).toMatchObject({ kind: "dark", trouble: "unpaired" });
    const line = edgeCauseLine(cause, "UTC");
    expect(line).toContain("unpaired");
    expect(line).toContain("reset &lt;!channel&gt;");
  });

  it("the bot's record as entries, within the range only", () => {
    const entries = edgeRecordEntries(record(), { sinceMs: T + 13.5 * MIN, untilMs: T + 60 * MIN });
    expect(entries.map((entry) => entry.what)).toEqual(["unhealthy"]);
    expect(edgeRecordEntries(undefined, { sinceMs: 0, untilMs: T })).toEqual([]);
  });
});
