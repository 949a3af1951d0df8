import { describe, expect, it } from "vitest";
import {
  assistantAnswerBlocks,
  assistantAnswerText,
  shareValueText,
  streamedText,
} from "../../../src/views/assistant.ts";
import { checkSlackLimits } from "../../../src/views/limits.ts";

const answer = {
  kind: "answered" as const,
  text: "**web-prod** is fine <!channel> <@U123> [click](https://evil.example/x)",
  sources: [{ command: "cluster web-prod", cluster: "web-prod" }],
  proposals: [{ command: "scale web-prod workers 5", verb: "scale", cluster: "web-prod" }],
  typed: [],
  turnId: 7,
};

describe("assistantAnswerBlocks", () => {
  it("escapes the model's words: no ping, no mention, no hidden link", () => {
    const json = JSON.stringify(assistantAnswerBlocks(answer));
    expect(json).toContain("*web-prod* is fine &lt;!channel&gt; &lt;@U123&gt;");
    expect(json).toContain("click (https://evil.example/x)");
    expect(json).not.toContain("<!channel>");
    expect(assistantAnswerText(answer)).not.toContain("<!channel>");
    expect(streamedText(answer.text)).not.toContain("](");
  });

  it("ends with a Review button per proposal, the Sources and 👍/👎, within Slack's limits", () => {
    const blocks = assistantAnswerBlocks(answer);
    const json = JSON.stringify(blocks);
    expect(json).toContain('"value":"scale web-prod workers 5"');
    expect(json).toContain("Nothing has been sent");
    expect(json).toContain("Sources: `cluster web-prod`");
    expect(json).toContain('"action_id":"assistant_feedback:down","value":"7"');
    expect(checkSlackLimits(blocks)).toEqual([]);
  });

  it("a failed answer names the typed commands; a streamed one leaves its words out", () => {
    const failed = assistantAnswerBlocks({
      ...answer,
      kind: "failed",
      text: "The model did not answer.",
      proposals: [],
      typed: ["nodes <cluster>"],
    });
    expect(JSON.stringify(failed)).toContain(
      "These commands answer it directly: `nodes &lt;cluster&gt;`",
    );
    const tail = JSON.stringify(assistantAnswerBlocks({ ...answer, withText: false }));
    expect(tail).not.toContain("is fine");
  });

  it("keeps a very long answer within Slack's limits", () => {
    const long = {
      ...answer,
      text: Array.from({ length: 400 }, (_, i) => `line ${i} ${"x".repeat(60)}`).join("\n"),
    };
    expect(checkSlackLimits(assistantAnswerBlocks(long))).toEqual([]);
  });
});

describe("shareValueText", () => {
  it("stays within Slack's 2,000 characters and valid JSON, leaving sources off the end", () => {
    const long = Array.from({ length: 8 }, (_, i) => `why ${"x".repeat(280)}-${i}`);
    const text = shareValueText({ turnId: 7, channel: "C1", threadTs: "1.2", sources: long });
    expect(text.length).toBeLessThanOrEqual(2_000);
    const parsed = JSON.parse(text) as { turnId: number; sources: string[] };
    expect(parsed.turnId).toBe(7);
    expect(parsed.sources.length).toBeGreaterThan(0);
    expect(parsed.sources.length).toBeLessThan(8);
    expect(parsed.sources).toEqual(long.slice(0, parsed.sources.length));
  });
});
