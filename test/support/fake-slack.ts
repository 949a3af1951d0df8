import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { checkMessage, checkView } from "./slack-limits.ts";
import { RateTiers } from "./slack-rate-tiers.ts";

/**
 * A fake Slack Web API on 127.0.0.1: the bot reaches it through `SLACK_API_URL`
 * (`${fake.apiUrl}`), and `response_url`s in test payloads point at `${fake.url}/response/<id>`.
 * It records every call so tests assert what the bot sent, and answers like Slack does
 * (HTTP 200 with `ok: false` for API errors, 429 with `Retry-After` for rate limits).
 *
 * Strict by default, as a real Slack is: every message and view is checked against Slack's
 * limits (test/support/slack-limits.ts) and refused as Slack refuses it, and every method is
 * rate-limited by its tier (test/support/slack-rate-tiers.ts). A test whose point is elsewhere
 * may ask for a lax Slack, and must say why: `startFakeSlack({ lax: ["rate"], reason: "…" })`.
 */

export interface RecordedCall {
  method: string;
  /** form fields or JSON body; nested JSON fields (blocks, view…) are parsed */
  body: Record<string, unknown>;
  headers: IncomingMessage["headers"];
  at: number;
  /**
   * set when the fake itself refused the call as Slack would (its limits or its rate tiers):
   * nothing reached the channel, so `callsTo` and `waitFor` leave it out; `calls` keeps it
   */
  refusedBy?: "limits" | "rate";
  /**
   * resolves when the caller gave up on this call before its answer was written (its time-out,
   * a lost connection): a test holding Slack's answer waits on it, not on a sleep
   */
  abandoned?: Promise<void>;
}

export type FakeAnswer =
  | {
      status?: number;
      headers?: Record<string, string>;
      body: unknown;
      /**
       * chat.postMessage only: Slack posted the message, then this answer came instead of its
       * own (a gateway's 504 after Slack committed, an answer lost on the way)
       */
      posted?: true;
    }
  | { status: number; headers?: Record<string, string>; text: string }
  | undefined;

/** Return undefined to fall through to the default answer. */
export type FakeHandler = (call: RecordedCall) => FakeAnswer | Promise<FakeAnswer>;

/** "limits": take payloads Slack would refuse; "rate": never answer 429 on its own */
export type Laxity = "limits" | "rate";

export interface FakeSlackOptions {
  /** what this Slack lets pass that a real one would not; needs a `reason` */
  lax?: Laxity[];
  /** why the test needs a lax Slack (kept in {@link laxSlacks}) */
  reason?: string;
  /** the clock the rate buckets refill by, in ms; a monotonic real clock by default */
  now?: () => number;
  /**
   * the bot token's scopes: auth.test names them in `x-oauth-scopes`, and the history methods
   * answer `missing_scope` without channels:history (C…), groups:history (G…) or im:history
   * (D…). Undefined: every scope granted.
   */
  scopes?: string[];
}

/** a message as the channel keeps it, for conversations.history and conversations.replies */
export interface StoredMessage {
  type: "message";
  ts: string;
  text?: string;
  blocks?: unknown[];
  bot_id: string;
  thread_ts?: string;
  reply_broadcast?: boolean;
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
}

/** every lax Slack started in this process, with its reason: the suite's count of them */
export const laxSlacks: Array<{ lax: Laxity[]; reason: string }> = [];

/** the methods whose payload is a message Slack checks */
const MESSAGE_METHODS = new Set([
  "chat.postMessage",
  "chat.update",
  "chat.postEphemeral",
  "chat.scheduleMessage",
  "response",
]);
const VIEW_METHODS = new Set(["views.open", "views.update", "views.push", "views.publish"]);

// captured at load so a test's fake timers cannot stop the buckets refilling
const monotonicNow = performance.now.bind(performance);

/** Slack's refusal of a payload over its limits, or undefined when Slack would take it */
function refusalOf(call: RecordedCall): FakeAnswer {
  // a response_url post that only deletes the original carries no message to check
  const deletesOnly =
    call.method === "response" && String(call.body.delete_original) === "true" && !call.body.text;
  if (MESSAGE_METHODS.has(call.method) && !deletesOnly) {
    const refusal = checkMessage(call.body);
    if (!refusal) return undefined;
    if (call.method === "response") {
      // a response_url answers like an incoming webhook: an HTTP error with the code as text
      return { status: 400, text: refusal.error };
    }
    return {
      body: {
        ok: false,
        error: refusal.error,
        errors: refusal.messages,
        response_metadata: { messages: refusal.messages },
      },
    };
  }
  if (VIEW_METHODS.has(call.method)) {
    const refusal = checkView(call.body.view);
    if (!refusal) return undefined;
    return {
      body: { ok: false, error: refusal.error, response_metadata: { messages: refusal.messages } },
    };
  }
  return undefined;
}

/**
 * A message as a person would finally see it. Streams are modelled as Slack does them
 * (chat.startStream / appendStream / stopStream): `markdown_text` of each call is appended in
 * order, stopStream's `blocks` render after the text, and a stopped stream takes no more appends
 * (`message_not_in_streaming_state`). chat.update replaces the text and blocks.
 */
export interface FakeMessage {
  channel: string;
  ts: string;
  threadTs?: string;
  /** a posted message's `text`, or a stream's markdown so far */
  text: string;
  blocks: unknown[];
  /** a stream that has not been stopped yet */
  streaming: boolean;
  /** how the message was made; an ephemeral one is seen by `user` alone */
  kind: "message" | "stream" | "ephemeral";
  user?: string;
}

export interface FakeSlack {
  url: string;
  /** every message the bot posted or streamed, by ts, as a person now sees it */
  shown: Map<string, FakeMessage>;
  apiUrl: string;
  calls: RecordedCall[];
  /**
   * calls to one Web API method (e.g. `chat.postMessage`), or `response_url` posts as `response`,
   * that Slack took: those the fake refused for its limits or rate tiers are left out (see
   * `refused`, `rateLimited`), those a test's handler answered are in
   */
  callsTo(method: string): RecordedCall[];
  /** bytes uploaded to the `upload_url`s handed out by files.getUploadURLExternal */
  uploads: Map<string, Buffer>;
  on(method: string, handler: FakeHandler): void;
  /** resolves when `count` calls to `method` have been recorded */
  waitFor(method: string, count?: number, timeoutMs?: number): Promise<RecordedCall[]>;
  /** calls Slack refused for their payload (invalid_blocks, invalid_arguments, …) */
  refused: RecordedCall[];
  /** calls answered 429 by the rate tiers */
  rateLimited: RecordedCall[];
  /** every message a channel holds (chat.postMessage that Slack took), oldest first */
  messages(channel: string): StoredMessage[];
  reset(): void;
  close(): Promise<void>;
}

const JSON_FIELDS = ["blocks", "attachments", "view", "file_uploads", "files", "metadata"];

function parseBody(raw: string, contentType: string | undefined): Record<string, unknown> {
  if (!raw) return {};
  if (contentType?.includes("application/json")) {
    try {
      return JSON.parse(raw) as Record<string, unknown>;
    } catch {
      return { _raw: raw };
    }
  }
  const fields: Record<string, unknown> = Object.fromEntries(new URLSearchParams(raw));
  for (const key of JSON_FIELDS) {
    const value = fields[key];
    if (typeof value === "string") {
      try {
        fields[key] = JSON.parse(value);
      } catch {
        // leave as sent
      }
    }
  }
  return fields;
}

export async function startFakeSlack(options: FakeSlackOptions = {}): Promise<FakeSlack> {
  const lax = new Set(options.lax ?? []);
  if (lax.size > 0) {
    if (!options.reason?.trim()) throw new Error("fake Slack: a lax Slack needs a reason");
    laxSlacks.push({ lax: [...lax], reason: options.reason });
  }
  const tiers = new RateTiers(options.now ?? monotonicNow);
  const refused: RecordedCall[] = [];
  const rateLimited: RecordedCall[] = [];
  const calls: RecordedCall[] = [];
  const uploads = new Map<string, Buffer>();
  const handlers = new Map<string, FakeHandler[]>();
  const waiters: Array<() => void> = [];
  const channels = new Map<string, StoredMessage[]>();
  const scopes = options.scopes ? new Set(options.scopes) : undefined;
  let sequence = 0;
  /** Slack's ts: the post's time in seconds, microseconds after the point, unique and rising */
  let lastMicros = 0;
  const nextTs = () => {
    lastMicros = Math.max(Date.now() * 1000, lastMicros + 1);
    return `${Math.floor(lastMicros / 1e6)}.${String(lastMicros % 1e6).padStart(6, "0")}`;
  };
  let url = "";
  const shown = new Map<string, FakeMessage>();
  const blocksOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  const markdownOf = (value: unknown): string => (typeof value === "string" ? value : "");
  /** a stream's later call: its message must exist and still stream, as Slack checks */
  const streamOf = (body: Record<string, unknown>): FakeMessage | { ok: false; error: string } => {
    const message = shown.get(String(body.ts));
    if (!message || message.channel !== body.channel)
      return { ok: false, error: "message_not_found" };
    if (!message.streaming) return { ok: false, error: "message_not_in_streaming_state" };
    return message;
  };

  /** a new message (posted) or stream (started), as Slack now shows it; its ts */
  const keepShown = (body: Record<string, unknown>, ts: string, kind: FakeMessage["kind"]) => {
    shown.set(ts, {
      channel: String(body.channel),
      ts,
      ...(body.thread_ts ? { threadTs: String(body.thread_ts) } : {}),
      text: markdownOf(kind === "stream" ? body.markdown_text : body.text),
      blocks: kind === "stream" ? [] : blocksOf(body.blocks),
      streaming: kind === "stream",
      kind,
      ...(kind === "ephemeral" ? { user: String(body.user) } : {}),
    });
    return ts;
  };

  /** keeps a message Slack took, as conversations.history will show it */
  const keep = (body: Record<string, unknown>, ts: string) => {
    const channel = String(body.channel ?? "");
    const metadata = body.metadata as StoredMessage["metadata"] | undefined;
    const message: StoredMessage = { type: "message", ts, bot_id: "BBOT" };
    if (typeof body.text === "string") message.text = body.text;
    if (Array.isArray(body.blocks)) message.blocks = body.blocks;
    if (typeof body.thread_ts === "string" && body.thread_ts) message.thread_ts = body.thread_ts;
    if (String(body.reply_broadcast) === "true") message.reply_broadcast = true;
    if (metadata && typeof metadata === "object" && typeof metadata.event_type === "string") {
      message.metadata = metadata;
    }
    channels.set(channel, [...(channels.get(channel) ?? []), message]);
  };

  /** the scope Slack wants for reading a conversation's history, by the id's first letter */
  const historyScope = (channel: string) =>
    channel.startsWith("G")
      ? "groups:history"
      : channel.startsWith("D")
        ? "im:history"
        : "channels:history";

  /**
   * conversations.history (newest first, the channel's own messages and thread broadcasts) and
   * conversations.replies (a thread's parent and replies, oldest first), as Slack answers them:
   * `oldest`/`latest` bounds (exclusive unless `inclusive`), `limit` (default 100, at most 999),
   * an opaque `cursor` with `has_more`, and metadata only with `include_all_metadata`.
   */
  const readHistory = (method: string, body: Record<string, unknown>): unknown => {
    const channel = typeof body.channel === "string" ? body.channel : "";
    if (!channel) return { ok: false, error: "channel_not_found" };
    const needed = historyScope(channel);
    if (scopes && !scopes.has(needed)) {
      return { ok: false, error: "missing_scope", needed, provided: [...scopes].join(",") };
    }
    const micros = (ts: unknown): bigint | undefined => {
      if (typeof ts !== "string" || !/^\d+(\.\d{1,6})?$/.test(ts)) return undefined;
      const [sec, frac = ""] = ts.split(".");
      return BigInt(sec!) * 1_000_000n + BigInt(frac.padEnd(6, "0"));
    };
    const inclusive = String(body.inclusive) === "true" || String(body.inclusive) === "1";
    const oldest = micros(body.oldest);
    const latest = micros(body.latest);
    const within = (ts: string) => {
      const at = micros(ts)!;
      if (oldest !== undefined && (inclusive ? at < oldest : at <= oldest)) return false;
      if (latest !== undefined && (inclusive ? at > latest : at >= latest)) return false;
      return true;
    };
    const all = channels.get(channel) ?? [];
    let selected: StoredMessage[];
    if (method === "conversations.replies") {
      const parent = typeof body.ts === "string" ? body.ts : "";
      if (!all.some((message) => message.ts === parent))
        return { ok: false, error: "thread_not_found" };
      selected = all
        .filter((m) => m.ts === parent || m.thread_ts === parent)
        .filter((m) => within(m.ts));
    } else {
      selected = all
        .filter((m) => !m.thread_ts || m.thread_ts === m.ts || m.reply_broadcast)
        .filter((m) => within(m.ts))
        .reverse();
    }
    const limit = Math.min(999, Math.max(1, Number(body.limit ?? 100) || 100));
    const start =
      typeof body.cursor === "string" && body.cursor
        ? Number(
            Buffer.from(body.cursor, "base64")
              .toString("utf8")
              .replace(/^offset:/, ""),
          )
        : 0;
    if (!Number.isInteger(start) || start < 0) return { ok: false, error: "invalid_cursor" };
    const page = selected.slice(start, start + limit);
    const withMetadata = String(body.include_all_metadata) === "true";
    const hasMore = start + limit < selected.length;
    return {
      ok: true,
      messages: page.map(({ metadata, ...message }) =>
        withMetadata && metadata ? { ...message, metadata } : message,
      ),
      has_more: hasMore,
      response_metadata: {
        next_cursor: hasMore ? Buffer.from(`offset:${start + limit}`).toString("base64") : "",
      },
    };
  };

  const defaults = (call: RecordedCall): unknown => {
    const body = call.body;
    const ts = nextTs;
    switch (call.method) {
      case "auth.test":
        return {
          ok: true,
          url: "https://test.slack.com/",
          team: "Test",
          user: "palette",
          team_id: "T111",
          user_id: "UBOT",
          bot_id: "BBOT",
        };
      case "chat.postMessage": {
        const posted = ts();
        keep(body, posted);
        keepShown(body, posted, "message");
        return { ok: true, channel: body.channel, ts: posted, message: { text: body.text } };
      }
      case "conversations.history":
      case "conversations.replies":
        return readHistory(call.method, body);
      case "chat.update": {
        const message = shown.get(String(body.ts));
        // an ephemeral message is not chat.update's to edit
        if (message && message.channel === body.channel && message.kind !== "ephemeral") {
          message.text = markdownOf(body.text);
          message.blocks = blocksOf(body.blocks);
        }
        return { ok: true, channel: body.channel, ts: body.ts, text: body.text };
      }
      // streamed answers (the assistant): the stream is a message whose ts the later calls name
      case "chat.startStream": {
        const started = keepShown(body, ts(), "stream");
        return { ok: true, channel: body.channel, ts: started };
      }
      case "chat.appendStream": {
        const message = streamOf(body);
        if ("ok" in message) return message;
        message.text += markdownOf(body.markdown_text);
        return { ok: true, channel: body.channel, ts: body.ts };
      }
      case "chat.stopStream": {
        const message = streamOf(body);
        if ("ok" in message) return message;
        message.text += markdownOf(body.markdown_text);
        // stopStream's blocks render at the bottom of the finalized message
        message.blocks = blocksOf(body.blocks);
        message.streaming = false;
        return { ok: true, channel: body.channel, ts: body.ts, message: { ts: body.ts } };
      }
      case "chat.postEphemeral": {
        // shown to `user` alone, never in the channel's history
        const posted = keepShown(body, ts(), "ephemeral");
        return { ok: true, message_ts: posted };
      }
      case "conversations.open":
        return {
          ok: true,
          channel: { id: `D${String(body.users ?? "X").replace(/[^A-Z0-9]/g, "")}` },
        };
      case "conversations.info":
        return { ok: true, channel: { id: body.channel, is_member: true } };
      case "files.getUploadURLExternal": {
        const id = `F${++sequence}`;
        return { ok: true, upload_url: `${url}/upload/${id}`, file_id: id };
      }
      case "files.completeUploadExternal":
        return {
          ok: true,
          files:
            (body.files as Array<{ id: string; title?: string }> | undefined)?.map((f) => ({
              id: f.id,
              title: f.title,
            })) ?? [],
        };
      case "views.open":
      case "views.update":
      case "views.push":
        return {
          ok: true,
          view: { id: `V${++sequence}`, hash: `h${sequence}`, ...(body.view as object) },
        };
      case "usergroups.users.list":
        return { ok: true, users: [] };
      case "users.info":
        return {
          ok: true,
          user: { id: body.user, tz: "America/New_York", tz_label: "Eastern Standard Time" },
        };
      case "response":
        return { ok: true };
      default:
        return { ok: true };
    }
  };

  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const path = (req.url ?? "/").split("?")[0]!;

    if (path.startsWith("/upload/")) {
      uploads.set(path.slice("/upload/".length), raw);
      res.writeHead(200, { "content-type": "text/plain" }).end("OK - uploaded");
      return;
    }

    let method: string;
    if (path.startsWith("/api/")) method = path.slice("/api/".length);
    else if (path.startsWith("/response/")) method = "response";
    else {
      res.writeHead(404).end();
      return;
    }

    const call: RecordedCall = {
      method,
      body: parseBody(raw.toString("utf8"), req.headers["content-type"]),
      headers: req.headers,
      at: Date.now(),
      abandoned: new Promise<void>((resolve) => {
        res.once("close", () => {
          if (!res.writableEnded) resolve();
        });
      }),
    };
    if (method === "response") call.body._responseId = path.slice("/response/".length);
    calls.push(call);

    let answer: FakeAnswer;
    // Slack refuses a payload over its limits whatever else happens
    if (!lax.has("limits")) {
      answer = refusalOf(call);
      if (answer) {
        call.refusedBy = "limits";
        if (process.env.FAKE_SLACK_DEBUG)
          console.error("REFUSED", method, JSON.stringify(answer).slice(0, 600));
        refused.push(call);
      }
    }
    // a test's scripted answer comes before the tiers, which it may be standing in for
    if (!answer) {
      for (const handler of handlers.get(method) ?? []) {
        answer = await handler(call);
        if (answer) break;
      }
    }
    if (!answer && !lax.has("rate")) {
      const verdict = tiers.take(method, call.body);
      if (!verdict.allowed) {
        call.refusedBy = "rate";
        if (process.env.FAKE_SLACK_DEBUG)
          console.error("RATE", method, String(call.body.channel ?? ""));
        rateLimited.push(call);
        answer = {
          status: 429,
          headers: { "retry-after": String(verdict.retryAfterSeconds) },
          body: { ok: false, error: "ratelimited" },
        };
      }
    }
    if (answer && "posted" in answer && answer.posted && method === "chat.postMessage") {
      keep(call.body, nextTs());
    }
    answer ??= { body: defaults(call) };
    if (method === "auth.test" && scopes && !("text" in answer)) {
      answer = {
        ...answer,
        headers: { ...answer.headers, "x-oauth-scopes": [...scopes].join(",") },
      };
    }
    if ("text" in answer) {
      res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers });
      res.end(answer.text);
    } else {
      res.writeHead(answer.status ?? 200, {
        "content-type": "application/json",
        ...answer.headers,
      });
      res.end(JSON.stringify(answer.body));
    }
    for (const wake of waiters.splice(0)) wake();
  });

  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const callsTo = (method: string) =>
    calls.filter((call) => call.method === method && call.refusedBy === undefined);

  return {
    url,
    apiUrl: `${url}/api/`,
    calls,
    shown,
    callsTo,
    uploads,
    on(method, handler) {
      handlers.set(method, [...(handlers.get(method) ?? []), handler]);
    },
    async waitFor(method, count = 1, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (callsTo(method).length < count) {
        const left = deadline - Date.now();
        if (left <= 0) {
          throw new Error(
            `fake Slack: waited ${timeoutMs} ms for ${count}× ${method}, saw ${callsTo(method).length}`,
          );
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 50));
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return callsTo(method);
    },
    refused,
    rateLimited,
    messages: (channel) => [...(channels.get(channel) ?? [])],
    reset() {
      channels.clear();
      calls.length = 0;
      refused.length = 0;
      rateLimited.length = 0;
      tiers.reset();
      uploads.clear();
      shown.clear();
      handlers.clear();
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
