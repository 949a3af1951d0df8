import type { AssistantConfig } from "../../src/config.ts";
import { Secret } from "../../src/secret.ts";

/** The assistant's settings against the scripted model (src/simulator/scripted-model.ts). */
export function scriptedAssistantConfig(
  baseUrl: string,
  overrides: Partial<AssistantConfig> = {},
): AssistantConfig {
  return {
    provider: "openai-compatible",
    baseUrl,
    model: "scripted",
    apiKey: new Secret("sk-test-not-a-real-key"),
    maxToolCalls: 8,
    tokenBudget: 16_000,
    perUserPerHour: 100,
    timeoutMs: 20_000,
    historyDays: 7,
    auditText: false,
    ...overrides,
  };
}
