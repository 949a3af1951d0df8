import { z } from "zod";
import type { AssistantConfig } from "../config.ts";
import { bounded, type Probe } from "./doctor-probe.ts";
import type { CheckLine } from "./doctor-report.ts";

/**
 * The doctor's `assistant` line (issue 33): is the model API the assistant would ask reachable,
 * and does it accept the key? It makes the cheapest call each protocol has that still needs the
 * key, and spends no tokens: `GET {base}/models` (OpenAI, and what vLLM, Ollama and LiteLLM serve
 * under /v1), or Anthropic's `GET /v1/models` with `x-api-key` and `anthropic-version`. The key is
 * only sent, never printed: an answer's text is not echoed on a refusal (OpenAI's 401 message
 * quotes part of the key), and the doctor redacts the whole key from every line anyway.
 */

/** The bases the AI SDK's providers use when ASSISTANT_BASE_URL is unset (src/assistant/provider.ts). */
const DEFAULT_BASE: Record<AssistantConfig["provider"], string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com/v1",
  "openai-compatible": "http://localhost:8000/v1",
};

/** The Anthropic API version the doctor asks for (the one @ai-sdk/anthropic sends). */
export const ANTHROPIC_VERSION = "2023-06-01";

/** OpenAI's list `{object: "list", data: [{id, object: "model"}]}`; Anthropic's `{data: [{id, type: "model"}], has_more}`. */
const modelList = z.object({ data: z.array(z.object({ id: z.string() }).passthrough()) });

/** `{error: {type, code}}` (OpenAI) or `{type: "error", error: {type}}` (Anthropic): the code only. */
const errorBody = z.object({
  error: z.object({ code: z.string().nullish(), type: z.string().nullish() }).passthrough(),
});

/** The base as printed: no user:password@, no query (a gateway may carry a token there). */
function shown(base: string): string {
  try {
    const url = new URL(base);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
  } catch {
    return "ASSISTANT_BASE_URL";
  }
}

export async function assistantCheck(
  config: AssistantConfig | undefined,
  probe: Probe,
): Promise<CheckLine> {
  if (!config) {
    return {
      check: "assistant",
      status: "skip",
      result: "not checked: ASSISTANT_PROVIDER is not set (no assistant, no model traffic)",
    };
  }
  const base = (config.baseUrl ?? DEFAULT_BASE[config.provider]).replace(/\/+$/, "");
  const where = shown(base);
  const anthropic = config.provider === "anthropic";
  const key = config.apiKey?.reveal();
  const headers: Record<string, string> = { accept: "application/json" };
  if (anthropic) {
    headers["anthropic-version"] = ANTHROPIC_VERSION;
    if (key) headers["x-api-key"] = key;
  } else if (key) {
    headers.authorization = `Bearer ${key}`;
  }
  // Anthropic pages its list; one model is enough to know the key works
  const url = `${base}/models${anthropic ? "?limit=1" : ""}`;
  const answer = await bounded(probe, "the model API", async (signal) => {
    const response = await probe.fetch(url, { headers, signal });
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, json };
  });
  const reachFix = `check ASSISTANT_BASE_URL (${where}), that the model server runs, and that a NetworkPolicy lets the bot reach it (chart: assistant.egress), and, behind a proxy, HTTPS_PROXY or NO_PROXY for an in-cluster server`;
  if (!answer.ok) {
    return {
      check: "assistant",
      status: "fail",
      result: `the model API at ${where} cannot be reached: ${answer.reason}`,
      fix: reachFix,
    };
  }
  const { status, json } = answer.value;
  if (status === 401 || status === 403) {
    const error = errorBody.safeParse(json);
    const code = error.success ? (error.data.error.code ?? error.data.error.type) : undefined;
    return {
      check: "assistant",
      status: "fail",
      result: `the model API at ${where} refused the key: HTTP ${status}${code ? ` (${code})` : ""}`,
      fix: key
        ? "set ASSISTANT_API_KEY to a valid key for this provider (and the project or workspace that holds the model)"
        : "the server wants a key: set ASSISTANT_API_KEY",
    };
  }
  if (status === 404) {
    return {
      check: "assistant",
      status: "fail",
      result: `the model API at ${where} has no /models (HTTP 404): not the API's base`,
      fix: "ASSISTANT_BASE_URL wants the API's base ending in /v1, e.g. http://vllm:8000/v1",
    };
  }
  if (status < 200 || status >= 300) {
    return {
      check: "assistant",
      status: "fail",
      result: `the model API at ${where} answered HTTP ${status} to GET /models`,
      fix:
        status >= 500 ? "the model server is in trouble: try again, or check its status" : reachFix,
    };
  }
  const list = modelList.safeParse(json);
  if (!list.success) {
    return {
      check: "assistant",
      status: "fail",
      result: `${where} answered GET /models, but not like a model API (no list of models)`,
      fix: "ASSISTANT_BASE_URL wants the model API's base, e.g. http://vllm:8000/v1",
    };
  }
  const ids = list.data.data.map((model) => model.id);
  // Anthropic lists dated names (claude-…-20250929) and was asked for one: no model check there
  if (!anthropic && !ids.includes(config.model)) {
    return {
      check: "assistant",
      status: "warn",
      result: `the model API at ${where} accepted the key, but does not list ASSISTANT_MODEL=${config.model} among its ${ids.length} models`,
      fix: `set ASSISTANT_MODEL to one it serves${ids.length > 0 ? `, e.g. ${ids.slice(0, 3).join(", ")}` : ""}`,
    };
  }
  return {
    check: "assistant",
    status: "pass",
    result: `${config.provider} model API at ${where} reachable, key accepted${anthropic ? "" : `, ${config.model} served`}`,
  };
}
