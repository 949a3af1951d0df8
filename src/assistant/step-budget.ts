/**
 * The token budget, checked before each model step rather than after it (issue 36 item 7): the
 * next prompt is estimated (about 4 characters a token) and added to what the steps so far used;
 * when the reads would not be affordable any more, or this is the last step the step limit
 * allows, the step is told to answer (`toolChoice: "none"`). A budget reached right after a read
 * so still ends in an answer from what was read, not in "failed: budget". Pure.
 */

export interface StepUsage {
  usage: { inputTokens?: number | undefined; outputTokens?: number | undefined };
  finishReason?: string;
}

export const usedTokens = (steps: readonly StepUsage[]): number =>
  steps.reduce(
    (used, step) => used + (step.usage.inputTokens ?? 0) + (step.usage.outputTokens ?? 0),
    0,
  );

/** a prompt's tokens, estimated from its text (the model counts its own; this is the bound's) */
export const estimateTokens = (value: unknown): number =>
  Math.ceil((typeof value === "string" ? value : JSON.stringify(value)).length / 4);

/**
 * Must this step answer rather than read? Yes on the last step the step limit allows, and when
 * what was used, this step's prompt and one answer would pass the budget.
 */
export function mustAnswer(input: {
  stepNumber: number;
  lastStep: number;
  steps: readonly StepUsage[];
  promptTokens: number;
  answerTokens: number;
  budget: number;
}): boolean {
  if (input.stepNumber >= input.lastStep) return true;
  return usedTokens(input.steps) + input.promptTokens + input.answerTokens > input.budget;
}

/**
 * Stop before another step? Once the budget is reached, but never right after a step that read
 * (its results would be thrown away): the next step is then made to answer ({@link mustAnswer}).
 */
export function budgetSpent(steps: readonly StepUsage[], budget: number): boolean {
  return usedTokens(steps) >= budget && steps.at(-1)?.finishReason !== "tool-calls";
}
