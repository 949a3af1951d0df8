import { describe, expect, it } from "vitest";
import {
  changeVerbsAsked,
  clustersReturned,
  proposalRuleRefusal,
} from "../../../src/assistant/proposals.ts";
import { messageReply } from "../../../src/verb-kit/reply.ts";

describe("changeVerbsAsked", () => {
  it("finds the change verbs in the person's own words, whole words only", () => {
    expect([...changeVerbsAsked("please scale web-prod pool workers to 5")]).toEqual(["scale"]);
    expect([...changeVerbsAsked("Uncordon node-3 of web-prod")]).toEqual(["uncordon"]);
    expect([...changeVerbsAsked("can you back up web-prod and then upgrade it?")]).toEqual([
      "backup",
      "upgrade",
    ]);
    expect(changeVerbsAsked("what happened to web-prod lately?").size).toBe(0);
    // only the imperative asks: a question about a change made, or what a verb does, does not
    expect(changeVerbsAsked("why was web-prod scaled down yesterday?").size).toBe(0);
    expect(changeVerbsAsked("who deleted web-prod-2 and when?").size).toBe(0);
    expect(changeVerbsAsked("what does a scale do to the pods?").size).toBe(0);
    expect([...changeVerbsAsked("Can you please scale web-prod to 3")]).toEqual(["scale"]);
    expect([...changeVerbsAsked("web-prod is slow. Cordon node-3")]).toEqual(["cordon"]);
    // words that merely contain a verb do not ask for it
    expect(changeVerbsAsked("which clusters are scaleable or deleted-ish?").size).toBe(0);
  });
});

describe("proposalRuleRefusal", () => {
  const rules = {
    verb: "scale" as const,
    cluster: "Web-Prod",
    asked: new Set(["scale" as const]),
    returned: new Set(["web-prod"]),
    dangerous: false,
  };

  it("allows what was asked, on a cluster that was read", () => {
    expect(proposalRuleRefusal(rules)).toBeUndefined();
  });

  it("refuses a verb not asked, a cluster not read, and delete or upgrade while off", () => {
    expect(proposalRuleRefusal({ ...rules, verb: "delete" })).toContain("did not ask to delete");
    expect(proposalRuleRefusal({ ...rules, cluster: "prod" })).toContain("read it first");
    const del = { ...rules, verb: "delete" as const, asked: new Set(["delete" as const]) };
    expect(proposalRuleRefusal(del)).toContain("ASSISTANT_PROPOSE_DANGEROUS");
    expect(proposalRuleRefusal({ ...del, dangerous: true })).toBeUndefined();
  });
});

describe("clustersReturned", () => {
  it("takes names from a read's data, never from a notice", () => {
    const miss = messageReply(
      { screen: "notice", data: { mrkdwn: "No cluster named `ghost`. Did you mean `web-prod`?" } },
      "No cluster named ghost",
    );
    expect(clustersReturned(miss)).toEqual([]);
    const list = messageReply(
      {
        screen: "clusterList",
        data: { items: [{ uid: "AB12", name: "Web-Prod" }], scope: {}, tags: [] },
      },
      "clusters",
    );
    expect(clustersReturned(list)).toEqual(["web-prod", "ab12"]);
  });
});
