import { z } from "zod";
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
  content: Buffer;
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
  // one signal for the request and its answer's body, both of which can hang
  const signal = AbortSignal.timeout(timeoutMs);
  let uploaded: Response;
  try {
    uploaded = await fetchFn(ticket.upload_url, {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body: new Uint8Array(file.content),
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw new UploadTimeoutError(timeoutMs);
    throw error;
  }
  await uploaded.arrayBuffer().catch(() => undefined);
  if (!uploaded.ok) throw new UploadHttpError(uploaded.status);
  await client.files.completeUploadExternal({
    files: [{ id: ticket.file_id, title: file.title }],
    channel_id: dm.channel.id,
  });
  return { channelId: dm.channel.id, fileId: ticket.file_id };
}
