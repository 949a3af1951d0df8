import { webApi } from "@slack/bolt";
import { afterEach, describe, expect, it } from "vitest";
import { slackClientOptions } from "../../../src/slack/app.ts";
import { slackCardSink } from "../../../src/slack/launch-card-sink.ts";
import { type FakeSlack, startFakeSlack } from "../../support/fake-slack.ts";

/**
 * A launch card's calls against Slack's rate limit (the fake Slack's own tiers, on a clock the
 * test moves): the thread line that mentions the requester is sent once by the watcher, so a 429
 * must not lose it.
 */

let fake: FakeSlack | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("launch card sink", () => {
  it("sends a thread line again after Slack's Retry-After when the channel is rate-limited", async () => {
    let now = 0;
    fake = await startFakeSlack({ now: () => now });
    const slept: number[] = [];
    const sink = slackCardSink(
      new webApi.WebClient("xoxb-test", slackClientOptions(fake.apiUrl)),
      async (ms) => {
        slept.push(ms);
        now += ms;
      },
    );
    // the channel's burst used up by other posts within the same instant
    for (let i = 0; i < 4; i++) await sink.post("C1", { text: `card ${i}`, blocks: [] }, undefined);
    await sink.reply("C1", "1.2", "<@W111> your cluster is Running");
    expect(fake.rateLimited).toHaveLength(1);
    expect(slept).toEqual([1000]);
    const lines = fake.callsTo("chat.postMessage").filter((call) => call.body.thread_ts === "1.2");
    expect(lines.map((call) => call.body.text)).toEqual(["<@W111> your cluster is Running"]);
  });
});
