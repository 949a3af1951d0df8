import type { IncomingMessage, ServerResponse } from "node:http";

/** HTTP plumbing shared by the API and control routes. */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export interface Reply {
  status: number;
  /** JSON body; omitted for 204 */
  body?: unknown;
  /** a non-JSON body (kubeconfig) */
  raw?: { data: string | Buffer; contentType: string; filename?: string };
  headers?: Record<string, string>;
}

const MAX_BODY = 1024 * 1024;

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY) throw new ApiError(413, "RequestTooLarge", "request body exceeds 1 MiB");
    chunks.push(buffer);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(400, "InvalidJson", "request body is not valid JSON");
  }
}

export function send(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...(reply.headers ?? {}) };
  if (reply.raw) {
    headers["content-type"] = reply.raw.contentType;
    if (reply.raw.filename) {
      headers["content-disposition"] = `attachment; filename="${reply.raw.filename}"`;
    }
    res.writeHead(reply.status, headers);
    res.end(reply.raw.data);
    return;
  }
  if (reply.body === undefined) {
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  const payload = JSON.stringify(reply.body);
  headers["content-type"] = "application/json; charset=utf-8";
  headers["content-length"] = String(Buffer.byteLength(payload));
  res.writeHead(reply.status, headers);
  res.end(payload);
}

export function errorReply(error: ApiError, ref: string): Reply {
  return {
    status: error.status,
    body: { code: error.code, message: error.message, ref },
    headers: error.headers,
  };
}

export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
