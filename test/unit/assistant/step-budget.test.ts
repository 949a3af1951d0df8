import { describe, expect, it } from "vitest";
import { budgetSpent, estimateTokens, mustAnswer } from "../../../src/assistant/step-budget.ts";

const step = (tokens: number, finishReason: string) => ({
  usage: { inputTokens: tokens, outputTokens: 0 },
  finishReason,
});

describe("the token budget, before each step (issue 36 item 7)", () => {
  it("does not stop right after a step that read, even past the budget: its reads are answered from", () => {
    expect(budgetSpent([step(1_200, "tool-calls")], 1_000)).toBe(false);
    expect(budgetSpent([step(600, "tool-calls"), step(600, "stop")], 1_000)).toBe(true);
    expect(budgetSpent([step(400, "tool-calls")], 1_000)).toBe(false);
  });

  it("makes the step answer when its prompt and an answer would pass the budget", () => {
    const base = { stepNumber: 1, lastStep: 9, answerTokens: 250, budget: 1_000 };
    expect(mustAnswer({ ...base, steps: [step(400, "tool-calls")], promptTokens: 300 })).toBe(
      false,
    );
    expect(mustAnswer({ ...base, steps: [step(400, "tool-calls")], promptTokens: 400 })).toBe(true);
    expect(mustAnswer({ ...base, steps: [step(1_200, "tool-calls")], promptTokens: 0 })).toBe(true);
  });

  it("makes the last step the step limit allows answer, whatever the budget", () => {
    expect(
      mustAnswer({
        stepNumber: 9,
        lastStep: 9,
        steps: [],
        promptTokens: 0,
        answerTokens: 0,
        budget: 1e9,
      }),
    ).toBe(true);
  });

  it("estimates a prompt at about 4 characters a token", () => {
    expect(estimateTokens("x".repeat(400))).toBe(100);
    expect(estimateTokens([{ role: "user", content: "hi" }])).toBeGreaterThan(5);
  });
});
