import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import type { AssistantConfig } from "../config.ts";

/**
 * The model behind the assistant, from ASSISTANT_PROVIDER (the AI SDK's providers, not
 * hand-written HTTP). OpenAI is asked through its chat-completions API, the protocol every
 * OpenAI-compatible server (vLLM, Ollama, LiteLLM, a gateway) speaks too, so one scripted server
 * can stand in for all three in tests. The key is revealed here only, into the provider.
 */
export function assistantModel(config: AssistantConfig, fetchImpl?: typeof fetch): LanguageModel {
  const apiKey = config.apiKey?.reveal();
  const extra = fetchImpl ? { fetch: fetchImpl } : {};
  switch (config.provider) {
    case "openai":
      return createOpenAI({
        apiKey,
        ...(config.baseUrl ? { baseURL: config.baseUrl } : {}),
        ...extra,
      }).chat(config.model);
    case "anthropic":
      return createAnthropic({
        apiKey,
        ...(config.baseUrl ? { baseURL: config.baseUrl } : {}),
        ...extra,
      })(config.model);
    case "openai-compatible":
      return createOpenAICompatible({
        name: "openai-compatible",
        baseURL: config.baseUrl ?? "http://localhost:8000/v1",
        ...(apiKey ? { apiKey } : {}),
        // token counts in the stream's last chunk: the budget and /metrics need them
        includeUsage: true,
        ...extra,
      })(config.model);
  }
}
