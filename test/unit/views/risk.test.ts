import { describe, expect, it } from "vitest";
import type { Risk } from "../../../src/model/risk.ts";
import {
  type RiskRow,
  riskGoneBlocks,
  riskNoticeBlocks,
  riskNoticeText,
  risksListBlocks,
  risksSummaryText,
} from "../../../src/views/risk.ts";

const NOW = Date.parse("2026-11-25T10:00:00Z");
const DAY = 86_400_000;

const row = (name: string, risk: Partial<Risk> & Pick<Risk, "kind">): RiskRow => ({
  clusterUid: `uid-${name}`,
  name,
  project: "p1",
  since: NOW,
  readAt: NOW,
  risk: { severity: "warning", summary: "something", rank: 0, ...risk },
});

describe("risk views", () => {
  it("escape Palette's names and words in the blocks and the fallback text", () => {
    const hostile = {
      ...row("<!here> *bold*", { kind: "backup", summary: "last backup Failed: <@U123> & co" }),
      clusterUid: "5f2b0c3e9d1a4b0001a2b3c4",
    };
    const blocks = JSON.stringify(riskNoticeBlocks(hostile));
    expect(blocks).not.toContain("<!here>");
    expect(blocks).not.toContain("<@U123>");
    expect(blocks).toContain("&lt;!here&gt;");
    expect(riskNoticeText(hostile)).not.toContain("<!here>");
    expect(
      JSON.stringify(riskGoneBlocks({ clusterUid: "u", kind: "backup", name: "<!channel>" }, NOW)),
    ).not.toContain("<!channel>");
  });

  it("each notice offers its fix as the verb it runs", () => {
    const button = (kind: Risk["kind"]) =>
      JSON.stringify(riskNoticeBlocks(row("web", { kind })).at(-1));
    expect(button("certificates")).toContain("renew certificates uid-web project:p1");
    expect(button("repave")).toContain("repave approve uid-web project:p1");
    expect(button("update")).toContain("upgrade uid-web project:p1");
    expect(button("backup")).toContain("backup uid-web project:p1");
  });

  it("/palette risks groups by kind in order, worst first, and says when nothing holds", () => {
    const rows = [
      row("late", { kind: "certificates", severity: "warning", rank: NOW + 20 * DAY }),
      row("info", { kind: "update", severity: "info" }),
      row("soon", { kind: "certificates", severity: "critical", rank: NOW + 3 * DAY }),
    ];
    const text = JSON.stringify(risksListBlocks(rows, {}));
    expect(text.indexOf("*soon*")).toBeLessThan(text.indexOf("*late*"));
    expect(text.indexOf("Certificates expiring")).toBeLessThan(text.indexOf("Newer profile"));
    expect(risksSummaryText(rows, {})).toBe(
      "On the radar: 2 certificates expiring, 1 newer profile versions",
    );
    expect(JSON.stringify(risksListBlocks([], { tag: "env:prod" }))).toContain(
      "Nothing on the radar in tag `env:prod`",
    );
  });

  it("caps each kind at ten clusters and counts the rest", () => {
    const many = Array.from({ length: 13 }, (_, i) => row(`c${i}`, { kind: "backup", rank: i }));
    const text = JSON.stringify(risksListBlocks(many, {}));
    expect(text).toContain("…and 3 more");
    expect(text).not.toContain("*c12*");
  });
});
