import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { slackClientOptions } from "../../../src/slack/app.ts";
import { type FakeSlack, startFakeSlack } from "../../support/fake-slack.ts";

let fake: FakeSlack;
beforeAll(async () => {
  fake = await startFakeSlack();
});
afterAll(async () => {
  await fake.close();
});

describe("Slack call counting", () => {
  it("reports every Web API call by method and outcome, upload URLs included", async () => {
    const seen: string[] = [];
    const client = new webApi.WebClient("xoxb-test", {
      ...slackClientOptions(fake.apiUrl, (method, outcome) => seen.push(`${method} ${outcome}`)),
      retryConfig: { retries: 0 },
    });
    fake.on("chat.postMessage", (call) =>
      call.body.channel === "CGONE"
        ? { body: { ok: false, error: "channel_not_found" } }
        : undefined,
    );
    fake.on("chat.update", () => ({ status: 429, headers: { "retry-after": "1" }, body: {} }));

    await client.auth.test();
    await client.chat.postMessage({ channel: "C1", text: "hi" });
    await expect(client.chat.postMessage({ channel: "CGONE", text: "hi" })).rejects.toThrow();
    await expect(client.chat.update({ channel: "C1", ts: "1.1", text: "x" })).rejects.toThrow();
    await client.files.uploadV2({ channel_id: "D1", filename: "a.txt", file: Buffer.from("x") });

    expect(seen).toEqual([
      "auth.test ok",
      "chat.postMessage ok",
      "chat.postMessage channel_not_found",
      "chat.update rate_limited",
      "files.getUploadURLExternal ok",
      "files.upload ok",
      "files.completeUploadExternal ok",
    ]);
  });
});
