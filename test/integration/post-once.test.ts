import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger, silentLogger } from "../../src/log.ts";
import { createPostOnce } from "../../src/notify/delivery/post-once.ts";
import { Secret } from "../../src/secret.ts";
import { createSlackPoster } from "../../src/slack/notify-poster.ts";
import { PostAttemptStore } from "../../src/store/post-attempts.ts";
import { BACKENDS, closeOpened } from "../support/backends.ts";
import { type FakeSlack, type FakeSlackOptions, startFakeSlack } from "../support/fake-slack.ts";

/**
 * Post once (src/notify/delivery/post-once.ts) over real HTTP to the fake Slack, on both store
 * backends: a post whose answer was lost is found by its metadata and not posted again, in a
 * channel, in a thread and pages deep; without the history scope it posts again (at least
 * once), warns once and does not keep asking.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let fake: FakeSlack | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await closeOpened();
});

function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger("debug", stream), lines };
}

/** the first chat.postMessage Slack keeps but answers only after the poster gave up on it */
function loseFirstAnswer(slack: FakeSlack, lateMs: number) {
  let first = true;
  slack.on("chat.postMessage", async () => {
    if (first) {
      first = false;
      await sleep(lateMs);
    }
    return undefined;
  });
}

describe.each(BACKENDS)("post once on $name", (backend) => {
  async function setup(options: FakeSlackOptions = {}) {
    fake = await startFakeSlack(options);
    const db = await backend.open();
    const { logger, lines } = capturingLogger();
    const slack = createSlackPoster({
      token: new Secret("xoxb-once"),
      apiUrl: fake.apiUrl,
      timeoutMs: 300,
    });
    // the earlier attempts here have surely ended (their answer came or the call timed out)
    const once = createPostOnce({ db, slack, logger, settlesMs: 0 });
    return { fake, db, once, lines, slack };
  }

  it("finds a post whose answer was lost and does not post it again", async () => {
    const s = await setup();
    loseFirstAnswer(s.fake, 600);
    await expect(s.once.post("outbox:1", { channel: "C1", text: "hello" })).rejects.toThrow();
    await s.fake.waitFor("chat.postMessage", 1);
    // Slack took it after all: it is in the channel, with the attempt's token in its metadata
    while (s.fake.messages("C1").length === 0) await sleep(20);
    const [kept] = s.fake.messages("C1");
    expect(kept!.metadata?.event_type).toBe("palette_chatops_outbox");
    expect(kept!.metadata?.event_payload.row).toBe("outbox:1");

    const again = await s.once.post("outbox:1", { channel: "C1", text: "hello" });
    expect(again).toEqual({ ts: kept!.ts, found: true });
    expect(s.fake.messages("C1")).toHaveLength(1);
    const lookups = s.fake.callsTo("conversations.history");
    expect(lookups).toHaveLength(1);
    expect(lookups[0]!.body).toMatchObject({ channel: "C1", include_all_metadata: "true" });
    expect(Number(lookups[0]!.body.oldest)).toBeLessThan(Number(kept!.ts));
  });

  it("finds a thread line in its thread (conversations.replies)", async () => {
    const s = await setup();
    const parent = await s.once.post("outbox:2", { channel: "C2", text: "card" });
    loseFirstAnswer(s.fake, 600);
    const line = { channel: "C2", text: "line", thread_ts: parent.ts };
    await expect(s.once.post("outbox:3", line)).rejects.toThrow();
    while (s.fake.messages("C2").length < 2) await sleep(20);
    const again = await s.once.post("outbox:3", line);
    expect(again.found).toBe(true);
    expect(again.ts).toBe(s.fake.messages("C2")[1]!.ts);
    expect(s.fake.callsTo("conversations.replies")).toHaveLength(1);
    expect(s.fake.callsTo("conversations.history")).toHaveLength(0);
    expect(s.fake.messages("C2")).toHaveLength(2);
  });

  it("pages through a busy channel to find it", async () => {
    const s = await setup({ lax: ["rate"], reason: "450 messages posted at once to page through" });
    loseFirstAnswer(s.fake, 600);
    await expect(s.once.post("outbox:4", { channel: "C3", text: "mine" })).rejects.toThrow();
    while (s.fake.messages("C3").length === 0) await sleep(20);
    for (let i = 0; i < 450; i++) await s.slack.postMessage({ channel: "C3", text: `other ${i}` });
    const again = await s.once.post("outbox:4", { channel: "C3", text: "mine" });
    expect(again).toEqual({ ts: s.fake.messages("C3")[0]!.ts, found: true });
    // newest first, 200 a page: the oldest message is on the third page
    expect(s.fake.callsTo("conversations.history")).toHaveLength(3);
  });

  it("waits while an earlier attempt may still land, then looks", async () => {
    const s = await setup();
    const once = createPostOnce({ db: s.db, slack: s.slack, logger: silentLogger });
    await new PostAttemptStore(s.db, s.db.dialect).mark({
      key: "outbox:8",
      channel: "C6",
      token: "t",
    });
    await expect(once.post("outbox:8", { channel: "C6", text: "y" })).rejects.toMatchObject({
      kind: "transient",
      code: "earlier_attempt_in_flight",
    });
    expect(s.fake.callsTo("chat.postMessage")).toHaveLength(0);
    expect(s.fake.callsTo("conversations.history")).toHaveLength(0);
  });

  it("posts a message it did not find, under a new token", async () => {
    const s = await setup();
    // an attempt that never reached Slack: the marker is there, the message is not
    await new PostAttemptStore(s.db, s.db.dialect).mark({
      key: "outbox:5",
      channel: "C4",
      token: "never-sent",
    });
    const posted = await s.once.post("outbox:5", { channel: "C4", text: "x" });
    expect(posted.found).toBe(false);
    expect(s.fake.messages("C4")).toHaveLength(1);
    expect(s.fake.messages("C4")[0]!.metadata?.event_payload.token).not.toBe("never-sent");
  });

  it("without the history scope posts at least once, warns once, and stops asking for a while", async () => {
    const scopes = ["chat:write", "channels:read", "im:history"];
    const s = await setup({ scopes });
    for (const key of ["outbox:6", "outbox:7"]) {
      await new PostAttemptStore(s.db, s.db.dialect).mark({ key, channel: "C5", token: "t" });
    }
    expect((await s.once.post("outbox:6", { channel: "C5", text: "a" })).found).toBe(false);
    expect((await s.once.post("outbox:7", { channel: "C5", text: "b" })).found).toBe(false);
    expect(s.fake.messages("C5")).toHaveLength(2);
    const refused = s.fake.calls.filter((c) => c.method === "conversations.history");
    expect(refused).toHaveLength(1);
    const warnings = s.lines.filter((l) => String(l.msg).includes("refuses the bot its own"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.code).toBe("missing_scope");
  });
});

describe("the fake Slack's history, as Slack answers it", () => {
  it("refuses a private channel's history without groups:history, and names the scopes it has", async () => {
    fake = await startFakeSlack({ scopes: ["chat:write", "channels:history"] });
    const answer = await fetch(`${fake.apiUrl}conversations.history`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "channel=G123",
    });
    expect(await answer.json()).toMatchObject({
      ok: false,
      error: "missing_scope",
      needed: "groups:history",
    });
    const auth = await fetch(`${fake.apiUrl}auth.test`, { method: "POST" });
    expect(auth.headers.get("x-oauth-scopes")).toBe("chat:write,channels:history");
  });

  it("leaves metadata out unless asked, and thread replies out of the channel's history", async () => {
    fake = await startFakeSlack();
    const slack = createSlackPoster({ token: new Secret("xoxb"), apiUrl: fake.apiUrl });
    const metadata = {
      event_type: "palette_chatops_outbox",
      event_payload: { row: "r", token: "t" },
    };
    const { ts } = await slack.postMessage({ channel: "C9", text: "top", metadata });
    await slack.postMessage({ channel: "C9", text: "reply", thread_ts: ts, metadata });
    const read = async (body: string) =>
      (await (
        await fetch(`${fake!.apiUrl}conversations.history`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body,
        })
      ).json()) as { messages: Array<{ text: string; metadata?: unknown }> };
    const plain = await read("channel=C9");
    expect(plain.messages.map((m) => m.text)).toEqual(["top"]);
    expect(plain.messages[0]!.metadata).toBeUndefined();
    const full = await read("channel=C9&include_all_metadata=true");
    expect(full.messages[0]!.metadata).toEqual(metadata);
    // oldest is exclusive unless inclusive
    expect((await read(`channel=C9&oldest=${ts}`)).messages).toEqual([]);
    expect((await read(`channel=C9&oldest=${ts}&inclusive=true`)).messages).toHaveLength(1);
  });
});
