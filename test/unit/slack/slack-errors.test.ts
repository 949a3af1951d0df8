import { describe, expect, it } from "vitest";
import { describeSlackError } from "../../../src/slack/slack-errors.ts";

const platform = (error: string) => ({
  code: "slack_webapi_platform_error",
  data: { ok: false, error },
});

describe("describeSlackError", () => {
  it.each([
    ["not_in_channel", /invite it/i],
    ["channel_not_found", /not found/i],
    ["missing_scope", /permission/i],
    ["messages_tab_disabled", /Messages tab/],
    ["invalid_auth", /SLACK_BOT_TOKEN/],
  ])("explains %s", (code, words) => {
    const failure = describeSlackError(platform(code));
    expect(failure.code).toBe(code);
    expect(failure.message).toMatch(words);
  });

  it("names an unknown platform error without letting it inject mrkdwn", () => {
    const failure = describeSlackError(platform("weird_<!channel>_thing"));
    expect(failure.message).toContain("weird_channel_thing");
    expect(failure.message).not.toContain("<");
  });

  it("gives the wait of a rate limit, and covers HTTP, network and expired response_url", () => {
    expect(
      describeSlackError({ code: "slack_webapi_rate_limited_error", retryAfter: 12 }).message,
    ).toContain("12 s");
    expect(
      describeSlackError({ code: "slack_webapi_http_error", statusCode: 503 }).message,
    ).toContain("503");
    expect(describeSlackError({ code: "slack_webapi_request_error" }).code).toBe("network");
    expect(
      describeSlackError({ code: "slack_bolt_respond_error", statusCode: 404 }).message,
    ).toMatch(/expired/);
  });

  it("never echoes an unknown error's message (it may hold anything)", () => {
    const failure = describeSlackError(new Error("token xoxb-123-secret leaked"));
    expect(failure.code).toBe("unknown");
    expect(failure.message).not.toContain("xoxb");
  });
});
