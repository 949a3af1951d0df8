import { Counter, Histogram, type Registry } from "prom-client";
import type { AskRecord, AssistantObserver } from "../assistant/ask.ts";

/**
 * The assistant's figures in /metrics (issue 33): questions by surface and outcome, reads by tool
 * and outcome, tokens in and out, answer latency, ungrounded answers and 👍/👎. Labels come from
 * fixed sets (the surfaces, the tools, the outcomes), never from what someone typed.
 */
export function assistantMetrics(
  registry: Registry,
  prefix = "palette_chatops_",
): AssistantObserver {
  const registers = [registry];
  const questions = new Counter({
    name: `${prefix}assistant_questions_total`,
    help: "Questions to the assistant, by surface and outcome (answered, ungrounded, failed, limited)",
    labelNames: ["surface", "outcome"],
    registers,
  });
  const toolCalls = new Counter({
    name: `${prefix}assistant_tool_calls_total`,
    help: "The assistant's reads of Palette, by tool and outcome (ok, refused, over-limit)",
    labelNames: ["tool", "outcome"],
    registers,
  });
  const tokens = new Counter({
    name: `${prefix}assistant_tokens_total`,
    help: "Tokens the model reported, by direction (in, out)",
    labelNames: ["direction"],
    registers,
  });
  const latency = new Histogram({
    name: `${prefix}assistant_answer_seconds`,
    help: "Time from a question to its answer",
    buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120],
    registers,
  });
  const paletteCalls = new Counter({
    name: `${prefix}assistant_palette_calls_total`,
    help: "Palette API calls made for the assistant's reads",
    registers,
  });
  const ungrounded = new Counter({
    name: `${prefix}assistant_ungrounded_total`,
    help: "Answers refused because they named a cluster no read returned",
    registers,
  });
  const failures = new Counter({
    name: `${prefix}assistant_failures_total`,
    help: "Questions the model could not answer, by cause (model, timeout, malformed, budget)",
    labelNames: ["cause"],
    registers,
  });
  const feedback = new Counter({
    name: `${prefix}assistant_feedback_total`,
    help: "👍/👎 on the assistant's answers, by vote (up, down)",
    labelNames: ["vote"],
    registers,
  });
  return {
    answered(record: AskRecord) {
      questions.inc({ surface: record.surface, outcome: record.kind });
      for (const read of record.reads) toolCalls.inc({ tool: read.tool, outcome: read.outcome });
      if (record.proposals > 0)
        toolCalls.inc({ tool: "propose_change", outcome: "ok" }, record.proposals);
      tokens.inc({ direction: "in" }, record.tokensIn);
      tokens.inc({ direction: "out" }, record.tokensOut);
      paletteCalls.inc(record.paletteCalls);
      latency.observe(record.ms / 1000);
      if (record.kind === "ungrounded") ungrounded.inc();
      if (record.failure) failures.inc({ cause: record.failure });
    },
    feedback(vote) {
      feedback.inc({ vote });
    },
  };
}
