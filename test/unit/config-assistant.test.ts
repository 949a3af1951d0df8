import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.ts";

const base = {
  SLACK_BOT_TOKEN: "xoxb-test-bot-token",
  SLACK_SIGNING_SECRET: "signing-secret-value",
  PALETTE_API_KEY: "palette-api-key-value",
};

function errorOf(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("the assistant's variables (issue 33)", () => {
  it("leaves the assistant off when ASSISTANT_PROVIDER is unset", () => {
    expect(loadConfig(base).assistant).toBeUndefined();
    expect(loadConfig({ ...base, ASSISTANT_MODEL: "x", ASSISTANT_API_KEY: "k" }).assistant).toBe(
      undefined,
    );
  });

  it("applies the documented defaults and keeps the key a secret", () => {
    const config = loadConfig({
      ...base,
      ASSISTANT_PROVIDER: "openai",
      ASSISTANT_MODEL: "gpt-4.1-mini",
      ASSISTANT_API_KEY: "sk-very-secret-value",
    });
    expect(config.assistant).toMatchObject({
      provider: "openai",
      model: "gpt-4.1-mini",
      maxToolCalls: 8,
      tokenBudget: 16_000,
      perUserPerHour: 20,
      timeoutMs: 60_000,
      historyDays: 7,
      auditText: false,
    });
    expect(inspect(config, { depth: 10 })).not.toContain("sk-very-secret-value");
    expect(JSON.stringify(config)).not.toContain("sk-very-secret-value");
  });

  it("names what is missing, one variable at a time", () => {
    expect(errorOf({ ...base, ASSISTANT_PROVIDER: "anthropic" }).variable).toBe("ASSISTANT_MODEL");
    expect(
      errorOf({ ...base, ASSISTANT_PROVIDER: "anthropic", ASSISTANT_MODEL: "m" }).variable,
    ).toBe("ASSISTANT_API_KEY");
    expect(
      errorOf({ ...base, ASSISTANT_PROVIDER: "openai-compatible", ASSISTANT_MODEL: "m" }).variable,
    ).toBe("ASSISTANT_BASE_URL");
    expect(errorOf({ ...base, ASSISTANT_PROVIDER: "gemini" }).message).toContain(
      "openai, anthropic, openai-compatible",
    );
    expect(errorOf({ ...base, ASSISTANT_MAX_TOOL_CALLS: "0" }).variable).toBe(
      "ASSISTANT_MAX_TOOL_CALLS",
    );
    expect(errorOf({ ...base, ASSISTANT_AUDIT_TEXT: "yes" }).variable).toBe("ASSISTANT_AUDIT_TEXT");
  });

  it("takes a local server with no key", () => {
    const config = loadConfig({
      ...base,
      ASSISTANT_PROVIDER: "openai-compatible",
      ASSISTANT_BASE_URL: "http://vllm:8000/v1",
      ASSISTANT_MODEL: "llama3.1:8b",
      ASSISTANT_AUDIT_TEXT: "true",
    });
    expect(config.assistant).toMatchObject({
      baseUrl: "http://vllm:8000/v1",
      auditText: true,
    });
    expect(config.assistant?.apiKey).toBeUndefined();
  });
});

describe("who sees what, who may propose what (issue 36)", () => {
  const on = {
    ...base,
    ASSISTANT_PROVIDER: "openai",
    ASSISTANT_MODEL: "gpt-4.1-mini",
    ASSISTANT_API_KEY: "sk-very-secret-value",
  };

  it("offers no delete or upgrade, redacts nothing extra and hides e-mails by default", () => {
    expect(loadConfig(on).assistant).toMatchObject({
      proposeDangerous: false,
      redact: [],
      showEmail: false,
    });
  });

  it("reads ASSISTANT_PROPOSE_DANGEROUS, ASSISTANT_REDACT and WHY_SHOW_EMAIL", () => {
    const config = loadConfig({
      ...on,
      ASSISTANT_PROPOSE_DANGEROUS: "true",
      ASSISTANT_REDACT: " emails , Names",
      WHY_SHOW_EMAIL: "true",
    });
    expect(config.assistant).toMatchObject({
      proposeDangerous: true,
      redact: ["emails", "names"],
      showEmail: true,
    });
  });

  it("refuses an unknown redaction with the variable's name", () => {
    expect(errorOf({ ...on, ASSISTANT_REDACT: "emails,phones" }).message).toContain(
      "ASSISTANT_REDACT",
    );
    expect(errorOf({ ...on, ASSISTANT_PROPOSE_DANGEROUS: "yes" }).message).toContain(
      "ASSISTANT_PROPOSE_DANGEROUS",
    );
  });
});
