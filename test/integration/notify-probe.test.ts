import { afterEach, describe, expect, it } from "vitest";
import { Secret } from "../../src/secret.ts";
import { createChannelProbe } from "../../src/slack/notify-poster.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";

let fake: FakeSlack | undefined;
afterEach(async () => {
  await fake?.close();
});

describe("channel probe over conversations.info", () => {
  it("reads is_member, treats channel_not_found as not a member, skips DMs", async () => {
    fake = await startFakeSlack();
    fake.on("conversations.info", (call) => {
      if (call.body.channel === "CNOT")
        return { body: { ok: true, channel: { id: "CNOT", is_member: false } } };
      if (call.body.channel === "GPRIV") return { body: { ok: false, error: "channel_not_found" } };
      return undefined;
    });
    const probe = createChannelProbe({ token: new Secret("xoxb-t"), apiUrl: fake.apiUrl });
    expect(await probe.isMember("C123")).toBe(true);
    expect(await probe.isMember("CNOT")).toBe(false);
    expect(await probe.isMember("GPRIV")).toBe(false);
    expect(await probe.isMember("D123")).toBeUndefined();
    expect(await probe.isMember("console")).toBeUndefined();
    expect(fake.callsTo("conversations.info")).toHaveLength(3);
  });
});
