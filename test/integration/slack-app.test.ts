import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { RUN_COMMAND_ACTION } from "../../src/model/command-text.ts";
import { notice } from "../../src/slack/deliver.ts";
import type { ModalHandler } from "../../src/slack/types.ts";
import type { CommandContext, Reply } from "../../src/verb-kit/types.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";

/**
 * The Slack edge's own mechanics (ack first, delivery, retries, errors), with a stand-in
 * dispatcher so each case controls exactly what the command returns and when.
 */

const KUBECONFIG = Buffer.from("apiVersion: v1\nkind: Config\nclusters: []\n");
const seen: Array<{ text: string; ctx: CommandContext }> = [];
let release: (() => void) | undefined;

async function fakeDispatch(text: string, ctx: CommandContext): Promise<Reply> {
  seen.push({ text, ctx });
  const [verb] = text.split(" ");
  switch (verb) {
    case "wait":
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return notice("done waiting");
    case "share":
      return { ...notice("for everyone"), visibility: "in_channel" };
    case "file":
      return {
        kind: "file",
        fileName: "prod-1.kubeconfig",
        title: "Kubeconfig of prod-1",
        content: KUBECONFIG,
        notice: notice("Sent to your direct messages."),
      };
    case "launch":
      return { kind: "modal", modal: "launch" };
    case "boom":
      throw new Error("handler exploded");
    default:
      return notice(`ran ${text}`);
  }
}

let h: BotHarness;
const modalCalls: Array<{ triggerId: string; userId: string }> = [];
const onModal: ModalHandler = async (_reply, ctx) => {
  modalCalls.push({ triggerId: ctx.triggerId, userId: ctx.requester.userId });
};

beforeAll(async () => {
  h = await startBot({ dispatch: fakeDispatch });
});
afterAll(async () => {
  await h.close();
});
afterEach(() => {
  h.fake.reset();
  seen.length = 0;
  h.bot.edge.hooks.onModal = undefined;
});

describe("slash command", () => {
  it("acks with an empty 200 before the command finishes, answers later at the response_url", async () => {
    const sent = await h.command("wait");
    expect(sent.status).toBe(200);
    expect(sent.text).toBe("");
    // the command is still running: nothing was answered yet
    await expect.poll(() => seen.length).toBe(1);
    expect(h.fake.callsTo("response")).toHaveLength(0);
    release?.();
    const [answer] = await h.responses(sent.responseId);
    expect(answer!.body).toMatchObject({
      response_type: "ephemeral",
      replace_original: false,
      text: "done waiting",
    });
  });

  it("passes the requester from the payload and honours in_channel visibility", async () => {
    const sent = await h.command("share it", { userId: "U42", channelId: "C42" });
    const [answer] = await h.responses(sent.responseId);
    expect(answer!.body.response_type).toBe("in_channel");
    expect(seen[0]!.text).toBe("share it");
    expect(seen[0]!.ctx.requester).toMatchObject({
      userId: "U42",
      channelId: "C42",
      teamId: "T111",
    });
  });

  it("turns a handler that throws into an ephemeral apology, and keeps serving", async () => {
    const sent = await h.command("boom now");
    const [answer] = await h.responses(sent.responseId);
    expect(answer!.body.response_type).toBe("ephemeral");
    expect(String(answer!.body.text)).toContain("failed on our side");
    expect(String(answer!.body.text)).not.toContain("exploded");
    const next = await h.command("hello");
    expect((await h.responses(next.responseId))[0]!.body.text).toBe("ran hello");
  });

  it("runs a command once when Slack retries it", async () => {
    const request = h.commandRequest("once");
    expect((await h.post(request.body)).status).toBe(200);
    await h.responses(request.responseId);
    // Slack's retry is the same body (same trigger_id) with x-slack-retry-num
    const retry = await h.post(request.body, {
      "x-slack-retry-num": "1",
      "x-slack-retry-reason": "http_timeout",
    });
    expect(retry.status).toBe(200);
    // a fresh command after it is answered, so the retry had its chance to run first
    const after = await h.command("after");
    await h.responses(after.responseId);
    expect(seen.map((s) => s.text)).toEqual(["once", "after"]);
    expect(
      h.fake.callsTo("response").filter((c) => c.body._responseId === request.responseId),
    ).toHaveLength(1);
  });

  it("still runs a retry whose first attempt never arrived", async () => {
    const request = h.commandRequest("lost");
    expect((await h.post(request.body, { "x-slack-retry-num": "1" })).status).toBe(200);
    await h.responses(request.responseId);
    expect(seen.map((s) => s.text)).toEqual(["lost"]);
  });
});

describe("signatures", () => {
  it("rejects unsigned, forged and stale requests with 401 and runs nothing", async () => {
    const { body } = h.commandRequest("help");
    const unsigned = await fetch(h.url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    expect(unsigned.status).toBe(401);
    const { signedRequest } = await import("../support/slack-request.ts");
    const forged = signedRequest("not-the-secret", body);
    expect((await fetch(h.url, { method: "POST", headers: forged.headers, body })).status).toBe(
      401,
    );
    const stale = signedRequest("test-signing-secret", body, {
      timestamp: Math.floor(Date.now() / 1000) - 6 * 60,
    });
    expect((await fetch(h.url, { method: "POST", headers: stale.headers, body })).status).toBe(401);
    // a body changed after signing fails too
    const tampered = signedRequest("test-signing-secret", body);
    const changed = body.replace("text=help", "text=kubeconfig+prod");
    expect(
      (await fetch(h.url, { method: "POST", headers: tampered.headers, body: changed })).status,
    ).toBe(401);
    // a signed command after them is answered, so any of them had its chance to run first
    const after = await h.command("after");
    await h.responses(after.responseId);
    expect(seen.map((s) => s.text)).toEqual(["after"]);
    expect(
      h.fake.callsTo("response").filter((c) => c.body._responseId !== after.responseId),
    ).toHaveLength(0);
  });
});

describe("buttons", () => {
  it("a RUN_COMMAND button runs its value and answers ephemerally", async () => {
    const { status, responseId } = await h.click(`${RUN_COMMAND_ACTION}:nodes`, "nodes prod-1", {
      userId: "U7",
    });
    expect(status).toBe(200);
    const [answer] = await h.responses(responseId);
    expect(answer!.body).toMatchObject({ text: "ran nodes prod-1", response_type: "ephemeral" });
    expect(seen[0]!.ctx.requester).toMatchObject({ userId: "U7", channelId: "C111" });
  });

  it("an App Home button (no response_url) answers in the requester's DM", async () => {
    await h.click(RUN_COMMAND_ACTION, "clusters", { withoutResponseUrl: true, userId: "U8" });
    const [post] = await h.fake.waitFor("chat.postMessage");
    expect(post!.body).toMatchObject({ channel: "DU8", text: "ran clusters" });
    expect(h.fake.callsTo("conversations.open")[0]!.body.users).toBe("U8");
  });
});

describe("files", () => {
  it("uploads a file into the requester's DM only, and shows the notice in the channel", async () => {
    const sent = await h.command("file prod-1", { userId: "U5", channelId: "C5" });
    const [answer] = await h.responses(sent.responseId);
    expect(answer!.body).toMatchObject({
      response_type: "ephemeral",
      text: "Sent to your direct messages.",
    });
    expect(h.fake.callsTo("conversations.open")[0]!.body.users).toBe("U5");
    const [ticket] = h.fake.callsTo("files.getUploadURLExternal");
    expect(ticket!.body).toMatchObject({
      filename: "prod-1.kubeconfig",
      length: String(KUBECONFIG.length),
    });
    const [complete] = h.fake.callsTo("files.completeUploadExternal");
    expect(complete!.body.channel_id).toBe("DU5");
    expect(complete!.body.files).toEqual([
      { id: expect.any(String), title: "Kubeconfig of prod-1" },
    ]);
    expect([...h.fake.uploads.values()]).toEqual([KUBECONFIG]);
    // nothing went to a channel: no chat.postMessage, no channel in any upload call
    expect(h.fake.callsTo("chat.postMessage")).toHaveLength(0);
    expect(JSON.stringify(answer!.body)).not.toContain("apiVersion");
  });

  it.each([
    [
      "files.completeUploadExternal",
      { body: { ok: false, error: "not_in_channel" } },
      "not in this channel",
    ],
    ["conversations.open", { body: { ok: false, error: "messages_tab_disabled" } }, "Messages tab"],
    [
      "files.getUploadURLExternal",
      { status: 429, headers: { "retry-after": "7" }, body: { ok: false, error: "ratelimited" } },
      "try again in 7 s",
    ],
  ])(
    "a Slack error on %s becomes a clear ephemeral message and an audit row",
    async (method, answer, words) => {
      h.fake.on(method, () => answer);
      const sent = await h.command("file prod-1", { userId: "U6" });
      const [reply] = await h.responses(sent.responseId);
      expect(reply!.body.response_type).toBe("ephemeral");
      expect(String(reply!.body.text).toLowerCase()).toContain(words.toLowerCase());
      const [row] = await h.audit.recent(1);
      expect(row).toMatchObject({
        userId: "U6",
        action: "kubeconfig",
        target: "prod-1",
        outcome: "failed",
      });
      expect(h.fake.uploads.size === 0 || method === "files.completeUploadExternal").toBe(true);
    },
  );
});

describe("modals", () => {
  it("says the form is not available while no modal hook is plugged in", async () => {
    const sent = await h.command("launch");
    const [answer] = await h.responses(sent.responseId);
    expect(String(answer!.body.text)).toContain("not available yet");
  });

  it("hands the trigger_id to the plugged-in hook", async () => {
    h.bot.edge.hooks.onModal = onModal;
    const sent = await h.command("launch", { userId: "U9" });
    await expect.poll(() => modalCalls.length).toBe(1);
    expect(modalCalls[0]).toMatchObject({
      userId: "U9",
      triggerId: expect.stringMatching(/trigger$/),
    });
    expect(
      h.fake.callsTo("response").filter((c) => c.body._responseId === sent.responseId),
    ).toHaveLength(0);
  });
});

describe("a dead response_url", () => {
  it("is logged, not thrown: the bot keeps answering", async () => {
    h.fake.on("response", () => ({ status: 404, body: { ok: false } }));
    const sent = await h.command("hello");
    await h.responses(sent.responseId);
    h.fake.reset();
    const next = await h.command("again");
    expect((await h.responses(next.responseId))[0]!.body.text).toBe("ran again");
  });
});
