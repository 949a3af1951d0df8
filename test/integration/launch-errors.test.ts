import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AccessPolicy } from "../../src/access/types.ts";
import { SAMPLE_ANSWERS } from "../support/launch-answers.ts";
import {
  type LaunchHarness,
  type OpenView,
  startLaunchHarness,
  stateFor,
} from "../support/launch-harness.ts";

const onlyW111: AccessPolicy = {
  allows: async (userId, permission) => permission === "launch" && userId === "W111",
  grantHint: () => "Ask an admin to add you to ALLOW_LAUNCH.",
};

describe("launch: refusals, look-ups and idempotency", () => {
  let h: LaunchHarness;
  let awsForm: OpenView;
  let account: string;
  let profile: string;

  beforeAll(async () => {
    h = await startLaunchHarness({ policy: onlyW111 });
    const { view } = await h.openModal();
    awsForm = await h.pickProvider(view, "aws");
    account = (await h.suggest(awsForm, "account", ""))[0]!.value;
    profile = (await h.suggest(awsForm, "profile", ""))[0]!.value;
  });
  afterAll(async () => {
    await h?.close();
  });

  const aws = (overrides: Record<string, string | undefined>) =>
    stateFor("aws", h.project, {
      ...(SAMPLE_ANSWERS.aws as Record<string, string>),
      account,
      profile,
      ...overrides,
    });

  it("rejects a name that is not a DNS label, on the name block", async () => {
    const answer = await h.submit(awsForm, aws({ name: "Bad_Name" }));
    expect(answer.body.response_action).toBe("errors");
    expect(Object.keys(answer.body.errors ?? {})).toEqual(["name"]);
    expect(answer.body.errors?.name).toMatch(/DNS label/);
  });

  it("rejects a name already taken in the project", async () => {
    h.sim.control.addCluster({ name: "taken-name", projectUid: h.project, provider: "aws" });
    const answer = await h.submit(awsForm, aws({ name: "taken-name" }));
    expect(answer.body.errors?.name).toMatch(/already exists/);
    expect(h.sim.control.clusters(h.project).filter((c) => c.name === "taken-name")).toHaveLength(
      1,
    );
  });

  it("names each missing required field and out-of-range count", async () => {
    const answer = await h.submit(
      awsForm,
      aws({ name: "ok-name", region: undefined, workers: "500" }),
    );
    expect(answer.body.response_action).toBe("errors");
    expect(answer.body.errors?.region).toBe("Region is required.");
    expect(answer.body.errors?.workers).toMatch(/from 1 to 50/);
    expect(h.sim.control.clusters(h.project).some((c) => c.name === "ok-name")).toBe(false);
  });

  it("shows a Palette refusal as a field error, not a closed modal", async () => {
    h.sim.control.addFault({
      pathPrefix: "/v1/spectroclusters/aws",
      method: "POST",
      kind: "status",
      status: 403,
      times: 1,
    });
    const answer = await h.submit(awsForm, aws({ name: "refused-one" }));
    expect(answer.body.response_action).toBe("errors");
    expect(answer.body.errors?.provider).toMatch(/not allowed/);
    const audit = (await h.bot.audit.recent(5)).find((r) => r.target === "aws/refused-one");
    expect(audit?.outcome).toBe("rejected");
    // the claim was released: a corrected resubmit of the same view goes through
    const again = await h.submit(awsForm, aws({ name: "refused-one" }));
    expect(again.body.response_action).toBeUndefined();
    expect(h.sim.control.clusters(h.project).filter((c) => c.name === "refused-one")).toHaveLength(
      1,
    );
  });

  it("a double submit of the same view creates one cluster and one card", async () => {
    const { view } = await h.openModal();
    const form = await h.pickProvider(view, "aws");
    const state = aws({ name: "double-click" });
    const posts = h.bot.fake.callsTo("chat.postMessage").length;
    const [a, b] = await Promise.all([h.submit(form, state), h.submit(form, state)]);
    expect(a.body.response_action).toBeUndefined();
    expect(b.body.response_action).toBeUndefined();
    await h.waitForCard("double-click");
    expect(h.sim.control.clusters(h.project).filter((c) => c.name === "double-click")).toHaveLength(
      1,
    );
    const cards = h.bot.fake
      .callsTo("chat.postMessage")
      .slice(posts)
      .filter((c) => JSON.stringify(c.body.blocks ?? "").includes("double-click"));
    expect(cards).toHaveLength(1);
    // a retry later still creates nothing
    await h.submit(form, state);
    expect(h.sim.control.clusters(h.project).filter((c) => c.name === "double-click")).toHaveLength(
      1,
    );
    // the audit has the body without the SSH key name
    const record = (await h.bot.audit.recent(10)).find((r) => r.target === "aws/double-click");
    expect(record?.outcome).toBe("created");
    expect(record?.detail).not.toContain("my-key");
    expect(record?.detail).toContain("m5.xlarge");
  });

  it("the same name in flight from another view is refused", async () => {
    const { view } = await h.openModal();
    const form = await h.pickProvider(view, "aws");
    // double-click from the previous test is still Pending (its name is claimed until settled)
    const answer = await h.submit(form, aws({ name: "double-click" }));
    expect(answer.body.errors?.name).toMatch(/in progress|already exists/);
  });

  it("an unauthorized user cannot open the modal and hears why", async () => {
    const opens = h.bot.fake.callsTo("views.open").length;
    const { responseId } = await h.bot.command("launch", { userId: "W999", channelId: "C111" });
    const [refusal] = await h.bot.responses(responseId);
    expect(JSON.stringify(refusal!.body)).toMatch(/not allowed to launch/);
    expect(refusal!.body.response_type ?? "ephemeral").toBe("ephemeral");
    expect(h.bot.fake.callsTo("views.open")).toHaveLength(opens);
    expect(
      (await h.bot.audit.recent(5)).some((r) => r.userId === "W999" && r.outcome === "denied"),
    ).toBe(true);
    // and a forged submit from them is refused too
    const answer = await h.submit(awsForm, aws({ name: "sneaky" }), "W999");
    expect(answer.body.errors?.provider).toMatch(/not allowed/);
    expect(h.sim.control.clusters(h.project).some((c) => c.name === "sneaky")).toBe(false);
  });

  it("cloud-account options are the provider's kind, filtered by the typed text", async () => {
    const all = await h.suggest(awsForm, "account", "");
    expect(all.length).toBeGreaterThan(0);
    const awsAccounts = await h.palette.listCloudAccounts("aws", { projectUid: h.project });
    expect(all.map((o) => o.value).sort()).toEqual(awsAccounts.map((a) => a.metadata?.uid).sort());
    const first = awsAccounts[0]!.metadata!.name!;
    const filtered = await h.suggest(awsForm, "account", first.toUpperCase());
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((o) => o.text.toLowerCase().includes(first.toLowerCase()))).toBe(true);
    expect(await h.suggest(awsForm, "account", "no-such-account-zzz")).toEqual([]);
  });

  it("profile options are only the provider's cloudType", async () => {
    const profiles = await h.palette.listClusterProfiles({ projectUid: h.project });
    const byUid = new Map(profiles.map((p) => [p.metadata?.uid, p.spec?.cloudType]));
    const awsOptions = await h.suggest(awsForm, "profile", "");
    expect(awsOptions.length).toBeGreaterThan(0);
    expect(awsOptions.every((o) => byUid.get(o.value) === "aws")).toBe(true);
    const { view } = await h.openModal();
    const eksForm = await h.pickProvider(view, "eks");
    const eksOptions = await h.suggest(eksForm, "profile", "");
    expect(eksOptions.length).toBeGreaterThan(0);
    expect(eksOptions.every((o) => byUid.get(o.value) === "eks")).toBe(true);
    const eksAccounts = await h.suggest(eksForm, "account", "");
    expect(eksAccounts.map((o) => o.value).sort()).toEqual(
      (await h.suggest(awsForm, "account", "")).map((o) => o.value).sort(),
    );
  });

  it("switching provider keeps what was typed", async () => {
    const { view } = await h.openModal();
    const form = await h.pickProvider(view, "aws");
    const typed = aws({ name: "keep-me", tags: "env:dev" });
    const gcpForm = await h.pickProvider(form, "gcp", typed);
    const name = gcpForm.blocks.find((b) => (b as { block_id?: string }).block_id === "name") as {
      element: { initial_value?: string };
    };
    expect(name.element.initial_value).toBe("keep-me");
    const tags = gcpForm.blocks.find((b) => (b as { block_id?: string }).block_id === "tags") as {
      element: { initial_value?: string };
    };
    expect(tags.element.initial_value).toBe("env:dev");
    expect(gcpForm.blocks.length).toBeLessThanOrEqual(100);
  });

  it("step 1 without a provider asks for one", async () => {
    const { view } = await h.openModal();
    const answer = await h.submit(view, {});
    expect(answer.body.errors?.provider).toMatch(/provider/i);
  });
});
