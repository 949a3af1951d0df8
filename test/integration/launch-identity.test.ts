import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowAll } from "../../src/access/types.ts";
import { Secret } from "../../src/secret.ts";
import { SAMPLE_ANSWERS } from "../support/launch-answers.ts";
import {
  type LaunchHarness,
  type OpenView,
  startLaunchHarness,
  stateFor,
} from "../support/launch-harness.ts";

/**
 * IDENTITY=linked launches: the create runs with the person's own key, so Palette's RBAC decides
 * (a viewer is refused with Palette's reason and nothing is created) and Palette's request log
 * names the person, not the bot.
 */

describe("launch as the linked person", () => {
  let h: LaunchHarness;
  let awsForm: OpenView;
  let account: string;
  let profile: string;

  const link = async (userId: string, email: string) => {
    const identity = h.bot.bot.edge.commandDeps.identity!;
    await identity.store.put({
      slackUserId: userId,
      paletteUserUid: email,
      paletteUserName: email === "viewer@example.com" ? "Vera Viewer" : "Eddie Editor",
      method: "key",
      apiKey: new Secret(h.sim.control.issueUserKey(email)),
    });
  };
  const aws = (name: string) =>
    stateFor("aws", h.project, {
      ...(SAMPLE_ANSWERS.aws as Record<string, string>),
      account,
      profile,
      name,
    });

  beforeAll(async () => {
    h = await startLaunchHarness({ policy: allowAll, linked: true });
    await link("W111", "editor@example.com");
    const { view } = await h.openModal("W111");
    awsForm = await h.pickProvider(view, "aws");
    account = (await h.suggest(awsForm, "account", ""))[0]!.value;
    profile = (await h.suggest(awsForm, "profile", ""))[0]!.value;
  });
  afterAll(async () => {
    await h?.close();
  });

  it("tells an unlinked person to log in before the form opens", async () => {
    const sent = await h.bot.command("launch", { userId: "UNLINKED", channelId: "C111" });
    const [answer] = await h.bot.responses(sent.responseId);
    expect(JSON.stringify(answer!.body)).toContain("/palette login");
  });

  it("refuses a viewer with Palette's reason, and nothing is created", async () => {
    await link("UVIEWER", "viewer@example.com");
    h.sim.control.clearRequests();
    const answer = await h.submit(awsForm, aws("viewer-try"), "UVIEWER");
    expect(answer.body.response_action).toBe("errors");
    expect(JSON.stringify(answer.body.errors)).toContain(
      "Palette does not allow Vera Viewer to create clusters",
    );
    const creates = h.sim.control
      .requests()
      .filter((r) => r.method === "POST" && r.path.startsWith("/v1/spectroclusters/"));
    expect(creates).toEqual([
      expect.objectContaining({ status: 403, caller: "viewer@example.com" }),
    ]);
    expect(h.sim.control.clusters(h.project).some((c) => c.name === "viewer-try")).toBe(false);
  });

  it("creates as an editor, with the editor's key on the create request", async () => {
    h.sim.control.clearRequests();
    const answer = await h.submit(awsForm, aws("editor-made"), "W111");
    expect(answer.body).toEqual({});
    const creates = h.sim.control
      .requests()
      .filter((r) => r.method === "POST" && r.path.startsWith("/v1/spectroclusters/"));
    expect(creates).toEqual([
      expect.objectContaining({ status: 201, caller: "editor@example.com" }),
    ]);
    expect(h.sim.control.clusters(h.project).some((c) => c.name === "editor-made")).toBe(true);
    const [created] = (await h.bot.audit.recent(20)).filter((r) => r.outcome === "created");
    expect(created?.detail).toContain("Eddie Editor");
    // the launch card says whom Palette made it for
    const record = await h.waitForCard("editor-made");
    expect(record.paletteUser).toBe("Eddie Editor");
    const posted = h.bot.fake
      .callsTo("chat.postMessage")
      .find((c) => c.body.ts === undefined && JSON.stringify(c.body).includes("editor-made"));
    expect(JSON.stringify(posted?.body)).toContain("as Eddie Editor");
  });
});
