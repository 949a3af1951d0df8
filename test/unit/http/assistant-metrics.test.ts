import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { assistantMetrics } from "../../../src/http/assistant-metrics.ts";

describe("assistantMetrics", () => {
  it("counts questions, reads, tokens, Palette calls, ungrounded answers and feedback", async () => {
    const registry = new Registry();
    const observer = assistantMetrics(registry);
    observer.answered({
      kind: "ungrounded",
      surface: "mention",
      reads: [
        { tool: "nodes", outcome: "ok" },
        { tool: "list_clusters", outcome: "refused" },
      ],
      proposals: 1,
      paletteCalls: 3,
      tokensIn: 1200,
      tokensOut: 80,
      ms: 1500,
    });
    observer.feedback("down");
    const text = await registry.metrics();
    expect(text).toContain(
      'palette_chatops_assistant_questions_total{surface="mention",outcome="ungrounded"} 1',
    );
    expect(text).toContain(
      'palette_chatops_assistant_tool_calls_total{tool="nodes",outcome="ok"} 1',
    );
    expect(text).toContain(
      'palette_chatops_assistant_tool_calls_total{tool="propose_change",outcome="ok"} 1',
    );
    expect(text).toContain('palette_chatops_assistant_tokens_total{direction="in"} 1200');
    expect(text).toContain('palette_chatops_assistant_tokens_total{direction="out"} 80');
    expect(text).toContain("palette_chatops_assistant_palette_calls_total 3");
    expect(text).toContain("palette_chatops_assistant_ungrounded_total 1");
    expect(text).toContain('palette_chatops_assistant_feedback_total{vote="down"} 1');
    expect(text).toContain("palette_chatops_assistant_answer_seconds_count 1");
  });
});
