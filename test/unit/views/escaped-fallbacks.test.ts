import { describe, expect, it } from "vitest";
import type { ChangePlan } from "../../../src/model/change.ts";
import { approvalCardText, changeCardText } from "../../../src/views/change.ts";

/**
 * A card's fallback `text` is what notifications and clients without blocks show; Slack parses
 * it as mrkdwn, so a name from Palette or a person must not ping (`<!channel>`), link or break
 * the markup there either.
 */

const HOSTILE = "<!channel> *x* & <https://evil.example|click>";

const scale = {
  verb: "scale",
  cluster: {
    uid: "c1",
    name: HOSTILE,
    projectUid: "p1",
    cloudType: "aws",
    state: "Running",
  },
  pool: "<!here>&pool",
  from: 3,
  to: 5,
  configUid: "cfg1",
} as ChangePlan;

const expectEscaped = (text: string) => {
  expect(text).not.toContain("<!channel>");
  expect(text).not.toContain("<!here>");
  expect(text).not.toContain("<https://");
  expect(text).toContain("&lt;!channel&gt;");
  expect(text).toContain("&amp;");
  // no raw `&` but the escapes themselves
  expect(text.replace(/&(amp|lt|gt);/g, "")).not.toContain("&");
};

describe("escaped fallback text", () => {
  it("a change card's fallback escapes the cluster and pool names, at every status", () => {
    for (const status of ["executing", "accepted", "done", "failed"] as const) {
      const text = changeCardText({ plan: scale, status, requester: "W111" });
      expectEscaped(text);
      expect(text).toContain("&lt;!here&gt;&amp;pool");
    }
  });

  it("a delete card's fallback escapes the cluster name", () => {
    const plan: ChangePlan = { verb: "delete", cluster: scale.cluster };
    expectEscaped(changeCardText({ plan, status: "done", requester: "W111" }));
  });

  it("an approval card's fallback escapes the cluster name", () => {
    const text = approvalCardText({
      id: 7,
      plan: scale,
      requester: "W111",
      status: "awaiting_approval",
      expiresAt: Date.UTC(2026, 10, 26),
    });
    expectEscaped(text);
  });
});
