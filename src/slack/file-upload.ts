import { createReadStream } from "node:fs";
import { request } from "undici";
import { z } from "zod";
import type { SpooledFile } from "../verb-kit/types.ts";
import type { WebClient } from "./types.ts";

const openedDm = z.object({ channel: z.object({ id: z.string().min(1) }) });
const uploadTicket = z.object({ upload_url: z.string().url(), file_id: z.string().min(1) });

/** The upload URL answered something other than 200; shaped like a WebClient HTTP error. */
export class UploadHttpError extends Error {
  readonly code = "slack_webapi_http_error";
  constructor(readonly statusCode: number) {
    super(`Slack's upload URL answered HTTP ${statusCode}`);
    this.name = "UploadHttpError";
  }
}

/** The upload URL did not answer in time; shaped like a WebClient request error. */
export class UploadTimeoutError extends Error {
  readonly code = "slack_webapi_request_error";
  constructor(readonly timeoutMs: number) {
    super(`Slack's upload URL did not answer within ${timeoutMs} ms`);
    this.name = "UploadTimeoutError";
  }
}

/** A kubeconfig is a few kB: a minute covers the slowest link; longer means the upload hung. */
export const UPLOAD_TIMEOUT_MS = 60_000;

export interface DmFile {
  userId: string;
  fileName: string;
  title: string;
  /** in memory, or (an audit export) on disk, streamed to Slack as it is read */
  content: Buffer | SpooledFile;
}

/**
 * Puts a file into the user's DM with the bot and nowhere else, by Slack's v2 upload flow:
 * open the DM, get an upload URL, POST the bytes there, complete the upload into the DM.
 * Done by hand rather than `files.uploadV2` so the bytes go up raw (not multipart) and the
 * share target is visibly the DM. The upload URL is pre-signed, so no token is sent to it.
 */
export async function sendFileToDm(
  client: WebClient,
  file: DmFile,
  fetchFn: typeof fetch = fetch,
  timeoutMs = UPLOAD_TIMEOUT_MS,
): Promise<{ channelId: string; fileId: string }> {
  const dm = openedDm.parse(await client.conversations.open({ users: file.userId }));
  const ticket = uploadTicket.parse(
    await client.files.getUploadURLExternal({
      filename: file.fileName,
      length: file.content.byteLength,
    }),
  );
  // a large export (hundreds of MB) gets a second per MB on top: at under 1 MB/s it hung
  const allowedMs = timeoutMs + Math.ceil(file.content.byteLength / 1_000_000) * 1_000;
  // one signal for the request and its answer's body, both of which can hang
  const signal = AbortSignal.timeout(allowedMs);
  try {
    const status = Buffer.isBuffer(file.content)
      ? await postBuffer(fetchFn, ticket.upload_url, file.content, signal)
      : await postSpooled(ticket.upload_url, file.content, signal);
    if (status < 200 || status > 299) throw new UploadHttpError(status);
  } catch (error) {
    if (signal.aborted) throw new UploadTimeoutError(allowedMs);
    throw error;
  }
  await client.files.completeUploadExternal({
    files: [{ id: ticket.file_id, title: file.title }],
    channel_id: dm.channel.id,
  });
  return { channelId: dm.channel.id, fileId: ticket.file_id };
}

async function postBuffer(
  fetchFn: typeof fetch,
  url: string,
  content: Buffer,
  signal: AbortSignal,
): Promise<number> {
  const uploaded = await fetchFn(url, {
    method: "POST",
    headers: { "content-type": "application/octet-stream" },
    body: new Uint8Array(content),
    signal,
  });
  await uploaded.arrayBuffer().catch(() => undefined);
  return uploaded.status;
}

/**
 * A spooled file (an audit export, up to hundreds of MB) goes up read from disk as the socket
 * takes it, with its length told first. Not through fetch: measured on Node 20, fetch with a
 * streamed body (a file stream or Readable.toWeb) held most of a 150 MB file in memory at once;
 * undici's request pulls the file stream with backpressure (bench/audit-export.ts).
 */
async function postSpooled(
  url: string,
  content: SpooledFile,
  signal: AbortSignal,
): Promise<number> {
  const answer = await request(url, {
    method: "POST",
    headers: {
      "content-type": "application/octet-stream",
      "content-length": String(content.byteLength),
    },
    body: createReadStream(content.path, { highWaterMark: 256 * 1024 }),
    signal,
  });
  await answer.body.dump().catch(() => undefined);
  return answer.statusCode;
}
