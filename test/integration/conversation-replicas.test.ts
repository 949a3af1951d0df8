import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeSlack } from "../support/fake-slack.ts";
import { readFixtureJson } from "../support/fixtures.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";
import { type Replicas, startReplicasOnPostgres } from "../support/replicas.ts";
import type { BotHarness } from "../support/slack-harness.ts";

/**
 * Two replicas on one PostgreSQL, as the chart runs them: Slack redelivers a mention it thinks
 * went unanswered, and the redelivery may reach the other replica, whose own memory has never
 * seen the event. The event's claim in the store is what keeps the answer to one.
 */

let cluster: Replicas;
let fake: FakeSlack;
let replicas: BotHarness[];

beforeAll(async () => {
  cluster = await startReplicasOnPostgres(2, { seed: 3 });
  ({ fake, bots: replicas } = cluster);
}, POSTGRES_SETUP_TIMEOUT_MS);

afterAll(async () => cluster?.close());

describe("two replicas on PostgreSQL", () => {
  it("answer a mention and its redelivery to the other replica once", async () => {
    const { payload } = readFixtureJson<{ payload: Record<string, unknown> }>(
      "slack",
      "events",
      "app_mention.json",
    );
    const body = JSON.stringify({
      ...payload,
      event: { ...(payload.event as object), text: "<@UBOT> alerts", channel: "CREPLICA1" },
    });
    const json = { "content-type": "application/json" };
    // the first delivery and Slack's retry, one to each replica, at the same moment
    const sent = await Promise.all([
      replicas[0]!.post(body, json),
      replicas[1]!.post(body, {
        ...json,
        "x-slack-retry-num": "1",
        "x-slack-retry-reason": "http_timeout",
      }),
    ]);
    expect(sent.map((s) => s.status)).toEqual([200, 200]);
    const outcomes = await Promise.all(replicas.map((replica) => replica.settled(1)));
    expect(
      outcomes
        .flat()
        .map((o) => o.outcome)
        .sort(),
    ).toEqual(["answered", "duplicate"]);
    const posts = fake.callsTo("chat.postMessage");
    expect(posts).toHaveLength(1);
    expect(posts[0]!.body.thread_ts).toBe("1515449522.000016");
    expect(fake.callsTo("reactions.add")).toHaveLength(1);
  });
});
