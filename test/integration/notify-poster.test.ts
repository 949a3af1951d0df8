import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { webApi } from "@slack/bolt";
import { afterEach, describe, expect, it } from "vitest";
import { Secret } from "../../src/secret.ts";
import { sendFileToDm } from "../../src/slack/file-upload.ts";
import { createChannelProbe, createSlackPoster } from "../../src/slack/notify-poster.ts";
import { describeSlackError } from "../../src/slack/slack-errors.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";

let fake: FakeSlack | undefined;
let hanging: Server | undefined;
/** lets every answer held back by a test go, so the servers can close */
let releaseAll: Array<() => void> = [];

afterEach(async () => {
  for (const release of releaseAll) release();
  releaseAll = [];
  await fake?.close();
  fake = undefined;
  if (hanging) {
    hanging.closeAllConnections();
    await new Promise<void>((resolve) => hanging!.close(() => resolve()));
    hanging = undefined;
  }
});

/** A handler that answers only when the test ends: Slack (or the network) hung. */
function never(): Promise<undefined> {
  return new Promise((resolve) => releaseAll.push(() => resolve(undefined)));
}

/** Fails the test instead of hanging it: the passing path never waits this long. */
async function within<T>(ms: number, work: Promise<T>): Promise<T | "still waiting"> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<"still waiting">((resolve) => {
    timer = setTimeout(() => resolve("still waiting"), ms);
  });
  try {
    return await Promise.race([work, guard]);
  } finally {
    clearTimeout(timer);
  }
}

const settle = <T>(work: Promise<T>) =>
  work.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

describe("the notification poster against a fake Slack over HTTP", () => {
  it("gives up on a post Slack never answers: a transient timeout, not a hang", async () => {
    fake = await startFakeSlack();
    fake.on("chat.postMessage", () => never());
    const poster = createSlackPoster({
      token: new Secret("xoxb-t"),
      apiUrl: fake.apiUrl,
      timeoutMs: 200,
    });
    const outcome = await within(3_000, settle(poster.postMessage({ channel: "C1", text: "x" })));
    expect(outcome).not.toBe("still waiting");
    expect(outcome).toMatchObject({ ok: false, error: { kind: "transient", code: "timeout" } });
    expect(fake.callsTo("chat.postMessage")).toHaveLength(1);
  });

  it("gives up on a card edit Slack never answers the same way", async () => {
    fake = await startFakeSlack();
    fake.on("chat.update", () => never());
    const poster = createSlackPoster({
      token: new Secret("xoxb-t"),
      apiUrl: fake.apiUrl,
      timeoutMs: 200,
    });
    const outcome = await within(
      3_000,
      settle(poster.update({ channel: "C1", ts: "1.1", text: "x" })),
    );
    expect(outcome).toMatchObject({ ok: false, error: { kind: "transient", code: "timeout" } });
  });

  it("tells a workspace refusal (auth, scope, HTTP 401) from a message refusal and from an unknown code", async () => {
    fake = await startFakeSlack();
    const answers: Record<string, { status?: number; body: unknown }> = {
      CAUTH: { body: { ok: false, error: "invalid_auth" } },
      CREVOKED: { body: { ok: false, error: "token_revoked" } },
      CSCOPE: { body: { ok: false, error: "missing_scope", needed: "chat:write" } },
      C401: { status: 401, body: "unauthorized" },
      CBLOCKS: { body: { ok: false, error: "invalid_blocks" } },
      CNEW: { body: { ok: false, error: "some_code_slack_added_later" } },
    };
    fake.on("chat.postMessage", (call) => answers[String(call.body.channel)]);
    const poster = createSlackPoster({ token: new Secret("xoxb-t"), apiUrl: fake.apiUrl });
    const kindOf = async (channel: string) => {
      const outcome = await settle(poster.postMessage({ channel, text: "x" }));
      return outcome.ok ? "ok" : (outcome.error as { kind: string }).kind;
    };
    expect(await kindOf("CAUTH")).toBe("workspace");
    expect(await kindOf("CREVOKED")).toBe("workspace");
    expect(await kindOf("CSCOPE")).toBe("workspace");
    expect(await kindOf("C401")).toBe("workspace");
    expect(await kindOf("CBLOCKS")).toBe("rejected");
    expect(await kindOf("CNEW")).toBe("transient");
    expect(await kindOf("COK")).toBe("ok");
  });

  it("pings Slack with auth.test, within the same timeout", async () => {
    fake = await startFakeSlack();
    const poster = createSlackPoster({
      token: new Secret("xoxb-t"),
      apiUrl: fake.apiUrl,
      timeoutMs: 200,
    });
    await poster.ping!();
    expect(fake.callsTo("auth.test")).toHaveLength(1);
    fake.on("auth.test", () => never());
    const outcome = await within(3_000, settle(poster.ping!()));
    expect(outcome).toMatchObject({ ok: false, error: { kind: "transient", code: "timeout" } });
  });
});

describe("other Slack calls on the notification path have a timeout too", () => {
  it("the channel probe answers 'cannot tell' when conversations.info hangs", async () => {
    fake = await startFakeSlack();
    fake.on("conversations.info", () => never());
    const probe = createChannelProbe({
      token: new Secret("xoxb-t"),
      apiUrl: fake.apiUrl,
      timeoutMs: 200,
    });
    expect(await within(3_000, probe.isMember("C123"))).toBeUndefined();
  });

  it("a file upload whose upload URL never answers fails instead of hanging", async () => {
    fake = await startFakeSlack();
    hanging = createServer((_req, res) => {
      releaseAll.push(() => res.destroy());
    });
    hanging.listen(0, "127.0.0.1");
    await once(hanging, "listening");
    const uploadUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/upload/F1`;
    fake.on("files.getUploadURLExternal", () => ({
      body: { ok: true, upload_url: uploadUrl, file_id: "F1" },
    }));
    const client = new webApi.WebClient("xoxb-t", {
      slackApiUrl: fake.apiUrl,
      retryConfig: { retries: 0 },
    });
    const outcome = await within(
      3_000,
      settle(
        sendFileToDm(
          client,
          { userId: "U1", fileName: "c.kubeconfig", title: "c", content: Buffer.from("k") },
          fetch,
          200,
        ),
      ),
    );
    expect(outcome).toMatchObject({ ok: false, error: { name: "UploadTimeoutError" } });
    // what the requester reads: Slack could not be reached, try again
    const error = (outcome as { error: unknown }).error;
    expect(describeSlackError(error).code).toBe("network");
    expect(fake.callsTo("files.completeUploadExternal")).toHaveLength(0);
  });
});
