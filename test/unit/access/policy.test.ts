import { describe, expect, it } from "vitest";
import { createAccessPolicy, type UsergroupsClient } from "../../../src/access/policy.ts";
import { ManualClock } from "../../../src/clock.ts";
import { silentLogger } from "../../../src/log.ts";

function fakeClient(groups: Record<string, string[] | Error | { ok: false; error: string }>) {
  const calls: string[] = [];
  const client: UsergroupsClient = {
    usergroups: {
      users: {
        list: async ({ usergroup }) => {
          calls.push(usergroup);
          const answer = groups[usergroup];
          if (answer instanceof Error) throw answer;
          if (answer === undefined) return { ok: false, error: "no_such_subteam" };
          if (Array.isArray(answer)) return { ok: true, users: answer };
          return answer;
        },
      },
    },
  };
  return { client, calls, groups };
}

const base = { clock: new ManualClock(), logger: silentLogger };

describe("access policy", () => {
  it("denies everyone when the list is empty", async () => {
    const { client, calls } = fakeClient({});
    const policy = createAccessPolicy({ ...base, allowLaunch: [], allowKubeconfig: [], client });
    expect(await policy.allows("U1", "launch")).toBe(false);
    expect(await policy.allows("U1", "kubeconfig")).toBe(false);
    expect(calls).toEqual([]);
    expect(policy.grantHint("kubeconfig")).toContain("ALLOW_KUBECONFIG");
    expect(policy.grantHint("kubeconfig")).toMatch(/nobody/i);
  });

  it("grants * to everyone and keeps the permissions apart", async () => {
    const { client } = fakeClient({});
    const policy = createAccessPolicy({ ...base, allowLaunch: ["*"], allowKubeconfig: [], client });
    expect(await policy.allows("U9", "launch")).toBe(true);
    expect(await policy.allows("U9", "kubeconfig")).toBe(false);
  });

  it("grants listed user IDs only", async () => {
    const { client } = fakeClient({});
    const policy = createAccessPolicy({
      ...base,
      allowLaunch: [],
      allowKubeconfig: ["U1", "W2"],
      client,
    });
    expect(await policy.allows("U1", "kubeconfig")).toBe(true);
    expect(await policy.allows("W2", "kubeconfig")).toBe(true);
    expect(await policy.allows("U3", "kubeconfig")).toBe(false);
    const hint = policy.grantHint("kubeconfig");
    expect(hint).toContain("`ALLOW_KUBECONFIG`");
    expect(hint).toContain("`U1`");
    expect(hint).toContain("`W2`");
  });

  it("grants members of a user group and caches the membership until the TTL passes", async () => {
    const clock = new ManualClock();
    const fake = fakeClient({ S1: ["U1"] });
    const policy = createAccessPolicy({
      clock,
      logger: silentLogger,
      allowLaunch: ["S1"],
      allowKubeconfig: [],
      client: fake.client,
      cacheTtlMs: 60_000,
    });
    expect(await policy.allows("U1", "launch")).toBe(true);
    expect(await policy.allows("U2", "launch")).toBe(false);
    expect(fake.calls).toEqual(["S1"]);

    // U2 joins the group: the cache still answers until it expires
    fake.groups.S1 = ["U1", "U2"];
    clock.advance(59_999);
    expect(await policy.allows("U2", "launch")).toBe(false);
    expect(fake.calls).toHaveLength(1);
    clock.advance(1);
    expect(await policy.allows("U2", "launch")).toBe(true);
    expect(fake.calls).toEqual(["S1", "S1"]);
  });

  it("shares one lookup between concurrent checks", async () => {
    const fake = fakeClient({ S1: ["U1"] });
    const policy = createAccessPolicy({
      ...base,
      allowLaunch: ["S1"],
      allowKubeconfig: [],
      client: fake.client,
    });
    const answers = await Promise.all([
      policy.allows("U1", "launch"),
      policy.allows("U1", "launch"),
      policy.allows("U2", "launch"),
    ]);
    expect(answers).toEqual([true, true, false]);
    expect(fake.calls).toEqual(["S1"]);
  });

  it("denies and logs when the lookup fails, and asks again next time", async () => {
    const warnings: unknown[] = [];
    const logger = { ...silentLogger, warn: (obj: unknown) => warnings.push(obj) };
    const fake = fakeClient({ S1: new Error("An API error occurred: missing_scope") });
    const policy = createAccessPolicy({
      clock: new ManualClock(),
      logger: logger as unknown as typeof silentLogger,
      allowLaunch: ["S1"],
      allowKubeconfig: [],
      client: fake.client,
    });
    expect(await policy.allows("U1", "launch")).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings[0])).toContain("missing_scope");

    fake.groups.S1 = ["U1"];
    expect(await policy.allows("U1", "launch")).toBe(true);
    expect(fake.calls).toEqual(["S1", "S1"]);
  });

  it("denies on an ok:false answer or a malformed one", async () => {
    const fake = fakeClient({ S1: { ok: false, error: "no_such_subteam" } });
    const policy = createAccessPolicy({
      ...base,
      allowLaunch: ["S1", "S2"],
      allowKubeconfig: [],
      client: {
        usergroups: {
          users: {
            list: async (args) =>
              args.usergroup === "S2" ? { users: "nope" } : fake.client.usergroups.users.list(args),
          },
        },
      },
    });
    expect(await policy.allows("U1", "launch")).toBe(false);
  });
});

describe("with the bot's real WebClient", () => {
  it("asks Slack's usergroups.users.list on SLACK_API_URL and reads the members", async () => {
    const { startFakeSlack } = await import("../../support/fake-slack.ts");
    const { createSlackWebClient } = await import("../../../src/slack/app.ts");
    const { Secret } = await import("../../../src/secret.ts");
    const fake = await startFakeSlack();
    try {
      fake.on("usergroups.users.list", (call) =>
        call.body.usergroup === "SADMINS" ? { body: { ok: true, users: ["U1", "U2"] } } : undefined,
      );
      const client = createSlackWebClient(
        { botToken: new Secret("xoxb-x"), apiUrl: fake.apiUrl, mode: "http" },
        silentLogger,
      );
      const policy = createAccessPolicy({
        ...base,
        allowLaunch: [],
        allowKubeconfig: ["SADMINS"],
        client,
      });
      expect(await policy.allows("U2", "kubeconfig")).toBe(true);
      expect(await policy.allows("U3", "kubeconfig")).toBe(false);
      expect(fake.callsTo("usergroups.users.list")).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });
});

describe("ack (ALLOW_ACK)", () => {
  it("is open to everyone when not configured", async () => {
    const { client } = fakeClient({});
    const policy = createAccessPolicy({ ...base, allowLaunch: [], allowKubeconfig: [], client });
    expect(await policy.allows("U9", "ack")).toBe(true);
  });

  it("follows its own list, user groups included, and names ALLOW_ACK in the hint", async () => {
    const { client } = fakeClient({ SONCALL: ["U2"] });
    const policy = createAccessPolicy({
      ...base,
      allowLaunch: ["*"],
      allowKubeconfig: ["*"],
      allowAck: ["U1", "SONCALL"],
      client,
    });
    expect(await policy.allows("U1", "ack")).toBe(true);
    expect(await policy.allows("U2", "ack")).toBe(true);
    expect(await policy.allows("U3", "ack")).toBe(false);
    expect(policy.grantHint("ack")).toContain("`ALLOW_ACK`");
    expect(policy.grantHint("ack")).toContain("`SONCALL`");
  });

  it("freeze: unset ALLOW_FREEZE is whoever may change or launch; set, it alone", async () => {
    const { client } = fakeClient({ S0DELETERS: ["U5"] });
    const unset = createAccessPolicy({
      ...base,
      allowLaunch: ["U1"],
      allowKubeconfig: ["U2"],
      allowChanges: { logs: ["U3"], delete: ["S0DELETERS"] },
      client,
    });
    expect(await unset.allows("U1", "freeze")).toBe(true);
    expect(await unset.allows("U3", "freeze")).toBe(true);
    expect(await unset.allows("U5", "freeze")).toBe(true);
    // a kubeconfig is no change
    expect(await unset.allows("U2", "freeze")).toBe(false);
    expect(unset.grantHint("freeze")).toContain("ALLOW_FREEZE");

    const set = createAccessPolicy({
      ...base,
      allowLaunch: ["U1"],
      allowKubeconfig: [],
      allowChanges: { logs: ["U3"] },
      allowFreeze: ["U3"],
      client,
    });
    expect(await set.allows("U1", "freeze")).toBe(false);
    expect(await set.allows("U3", "freeze")).toBe(true);
    expect(set.grantHint("freeze")).toContain("`ALLOW_FREEZE` (today it grants `U3`)");
  });
});
