import { createHmac } from "node:crypto";
import { readFixtureJson } from "./fixtures.ts";

/**
 * Builds Slack requests in the real wire format, signed the way Slack signs them
 * (v0 HMAC-SHA256 of `v0:<timestamp>:<raw body>`), from the captured payloads in
 * `test/fixtures/slack/payloads/`.
 */

export function loadPayload<T = Record<string, unknown>>(file: string): T {
  return readFixtureJson<T>("slack", "payloads", file);
}

export function sign(secret: string, timestamp: number, rawBody: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${rawBody}`).digest("hex")}`;
}

export interface SignedRequest {
  body: string;
  headers: Record<string, string>;
}

export function signedRequest(
  secret: string,
  rawBody: string,
  options: { timestamp?: number; contentType?: string } = {},
): SignedRequest {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  return {
    body: rawBody,
    headers: {
      "content-type": options.contentType ?? "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": String(timestamp),
      "x-slack-signature": sign(secret, timestamp, rawBody),
    },
  };
}

/** A slash command from the captured fixture, with our command, text and response_url. */
export function slashCommandBody(fields: {
  text: string;
  userId?: string;
  channelId?: string;
  responseUrl: string;
  triggerId?: string;
}): string {
  const { parsed } = loadPayload<{ parsed: Record<string, string> }>("slash_command.json");
  const form = new URLSearchParams({
    ...parsed,
    command: "/palette",
    text: fields.text,
    user_id: fields.userId ?? parsed.user_id!,
    channel_id: fields.channelId ?? parsed.channel_id!,
    response_url: fields.responseUrl,
    trigger_id: fields.triggerId ?? parsed.trigger_id!,
  });
  return form.toString();
}

/** An interactive payload (block_actions, view_submission, block_suggestion…) as `payload=`. */
export function interactiveBody(payload: unknown): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

export async function postSigned(
  url: string,
  secret: string,
  rawBody: string,
  options: { timestamp?: number; contentType?: string } = {},
): Promise<{ status: number; text: string; ms: number }> {
  const request = signedRequest(secret, rawBody, options);
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: request.headers,
    body: request.body,
  });
  const text = await response.text();
  return { status: response.status, text, ms: performance.now() - started };
}

/** The `/palette login` form submitted by `userId` with `key` in its one field. */
export function loginSubmissionBody(
  userId: string,
  key: string,
  form: { callbackId: string; field: string },
): string {
  const { payload } = loadPayload<{ payload: Record<string, unknown> }>("view_submission.json");
  return interactiveBody({
    ...payload,
    user: { ...(payload.user as object), id: userId },
    view: {
      ...(payload.view as object),
      id: "VLOGIN",
      callback_id: form.callbackId,
      state: {
        values: { [form.field]: { [form.field]: { type: "plain_text_input", value: key } } },
      },
    },
  });
}
