import { describe, expect, it } from "vitest";
import { readsAsSentence, typedRunMissed } from "../../../src/conversation/typed-run.ts";
import { parseCommand } from "../../../src/verb-kit/parse.ts";
import { messageReply } from "../../../src/verb-kit/reply.ts";

const sentence = (text: string) => readsAsSentence(parseCommand(text).command);

describe("readsAsSentence", () => {
  it("takes a sentence that starts with a verb word for a question", () => {
    expect(sentence("why is web-prod unhealthy?")).toBe(true);
    expect(sentence("list the clusters that are not healthy")).toBe(true);
    expect(sentence("alerts for prod today?")).toBe(true);
    expect(sentence("logs of web-prod show errors?")).toBe(true);
  });

  it("leaves the verbs' own grammar alone, and verbs that take free text", () => {
    expect(sentence("why web-prod")).toBe(false);
    expect(sentence("why web-prod since 7d")).toBe(false);
    expect(sentence("clusters env team:core")).toBe(false);
    expect(sentence("nodes web-prod")).toBe(false);
    expect(sentence("mute 1d the deploy is noisy")).toBe(false);
    expect(sentence("mute web-prod 1d deploy noisy?! see #ops")).toBe(false);
  });

  it("a mute or freeze whose reason ends in a question mark is a question, not a reason", () => {
    expect(sentence("mute web-prod 1d is that wise?")).toBe(true);
    expect(sentence("freeze web-prod 2h, should I?")).toBe(true);
  });
});

describe("typedRunMissed", () => {
  it("is a usage screen or the resolver's miss; data and other notices are not", () => {
    const usage = messageReply(
      { screen: "usage", data: { problem: "p", usage: "nodes <cluster>" } },
      "usage",
    );
    const miss = messageReply(
      { screen: "notice", data: { mrkdwn: ":mag: No cluster named `is`." } },
      "No cluster named is",
    );
    const other = messageReply({ screen: "notice", data: { mrkdwn: "No alerts." } }, "No alerts");
    expect(typedRunMissed(usage)).toBe(true);
    expect(typedRunMissed(miss)).toBe(true);
    expect(typedRunMissed(other)).toBe(false);
  });
});
