import { describe, expect, it } from "vitest";
import type { TimelineEntry } from "../../../src/model/why.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";
import { causeLine, entryLine, type WhyData, whyBlocks } from "../../../src/views/why.ts";

const T = Date.UTC(2026, 10, 25, 12, 5);
const nasty = "<!channel> *bold* <https://evil.test|click> & `tick` <@U999>";

const entries: TimelineEntry[] = Array.from({ length: 20 }, (_, i) => ({
  at: T - i * 60_000,
  source: i % 3 === 0 ? "audit" : i % 3 === 1 ? "event" : "bot",
  who:
    i % 3 === 2
      ? { kind: "slack", userId: i === 2 ? "not a user <!here>" : "U0ALICE" }
      : { kind: "palette", name: `${nasty}@example.com` },
  what: i % 3 === 1 ? "ClusterUnhealthy" : "update",
  message: `${nasty} ${"x".repeat(400)}`,
  severity: i % 3 === 1 ? "warning" : undefined,
  write: i % 3 !== 1,
  ...(i % 3 === 2 ? { approver: "U0BOB", detail: `done ${nasty}` } : {}),
}));

const data: WhyData = {
  cluster: { uid: "u1", name: "web <!channel>", projectUid: "p1" },
  rangeLabel: "24h",
  sinceMs: T - 24 * 3600_000,
  untilMs: T,
  timeZone: "Asia/Kolkata",
  cause: { kind: "write", entry: entries[0]!, troubleAt: T + 5 * 60_000, trouble: entries[1]! },
  entries,
  page: 1,
  pages: 3,
  total: 55,
  hiddenNormal: 4,
  stoppedEarly: ["audit"],
  unavailable: [{ source: "events", why: "Palette said <!everyone> no" }],
  calls: 21,
  moreCommand: "why u1 project:p1 since 24h --page=2 --until=1",
};

describe("the why answer", () => {
  it("escapes every name and message, mentions only real Slack users, and fits Slack's limits", () => {
    const blocks = whyBlocks(data);
    expect(checkSlackLimits(blocks)).toEqual([]);
    // the header is plain text (Slack expands nothing there); everything else is mrkdwn
    expect(blocks[0]).toMatchObject({ type: "header", text: { type: "plain_text" } });
    const text = JSON.stringify(blocks.slice(1));
    expect(text).not.toContain("<!channel>");
    expect(text).not.toContain("<!here>");
    expect(text).not.toContain("<!everyone>");
    expect(text).not.toContain("<https://evil.test");
    expect(text).not.toContain("<@U999>");
    expect(text).toContain("&lt;!channel&gt;");
    expect(text).toContain("<@U0ALICE>");
    expect(text).toContain("approved by <@U0BOB>");
    expect(text).toContain("not a user &lt;!here&gt;");
  });

  it("shows times on the reader's wall clock and the More button with the next page's command", () => {
    // 12:05 UTC is 17:35 in Kolkata
    expect(entryLine(entries[0]!, "Asia/Kolkata")).toContain("`2026-11-25 17:35`");
    const text = JSON.stringify(whyBlocks(data));
    expect(text).toContain("page 1 of 3 (55 entries)");
    expect(text).toContain("4 normal events left out");
    expect(text).toContain("21 Palette calls");
    expect(text).toContain('"value":"why u1 project:p1 since 24h --page=2 --until=1"');
    expect(JSON.stringify(whyBlocks({ ...data, moreCommand: undefined }))).not.toContain("More");
  });

  it("the likely-cause line says what happened, or that nothing was recorded before it", () => {
    expect(causeLine(data.cause, "UTC")).toContain(
      "5 min before ClusterUnhealthy at `2026-11-25 12:10`",
    );
    expect(causeLine({ kind: "event", entry: entries[1]! }, "UTC")).toContain(
      "no change recorded before it",
    );
    expect(causeLine({ kind: "no-trouble", state: "Running", health: "Healthy" }, "UTC")).toContain(
      "No current trouble",
    );
    expect(causeLine({ kind: "unknown", state: "Failed" }, "UTC")).toContain("Failed");
  });
});
