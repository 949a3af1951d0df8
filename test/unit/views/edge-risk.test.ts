import { describe, expect, it } from "vitest";
import type { EdgeRisk } from "../../../src/model/edge-risk.ts";
import {
  edgeRiskGoneBlocks,
  edgeRiskGoneText,
  edgeRiskNoticeBlocks,
  edgeRiskNoticeText,
} from "../../../src/views/edge-risk.ts";

/**
 * The radar's edge notice (issue 39, item 5): a token's, host's or cluster's name and the summary
 * come from Palette, so neither may ping, link or break the markup, in the blocks or the fallback.
 */

const HOSTILE = "<!channel> *store* & <https://evil.example|click>";

const risk: EdgeRisk = {
  kind: "edge-token",
  severity: "warning",
  subject: { kind: "token", uid: "tok-1", name: HOSTILE, projectUid: "p1" },
  summary: "registration token expires in 3 days",
  at: Date.UTC(2026, 0, 13),
};

const expectEscaped = (text: string) => {
  expect(text).not.toContain("<!channel>");
  expect(text).not.toContain("<https://");
  expect(text).toContain("&lt;!channel&gt;");
};

describe("edge risk notice", () => {
  it("names the subject, the kind and the risk, with its UID and project", () => {
    const text = JSON.stringify(edgeRiskNoticeBlocks(risk));
    expect(text).toContain("Edge registration token");
    expect(text).toContain("registration token expires in 3 days");
    expect(text).toContain("token `tok-1`");
    expect(text).toContain("project `p1`");
    expect(text).toContain("2026-01-13 00:00 UTC");
  });

  it("escapes Palette's names in the blocks and the fallback text, live and ended", () => {
    expectEscaped(JSON.stringify(edgeRiskNoticeBlocks(risk)));
    expectEscaped(edgeRiskNoticeText(risk));
    const gone = { subjectUid: "tok-1", subjectKind: "token", name: HOSTILE, kind: risk.kind };
    const ended = JSON.stringify(edgeRiskGoneBlocks(gone, Date.UTC(2026, 0, 14)));
    expectEscaped(ended);
    expect(ended).toContain("no longer holds");
    expectEscaped(edgeRiskGoneText(HOSTILE, risk.kind));
  });
});
