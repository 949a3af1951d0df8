import { PaletteError, type PaletteErrorKind } from "./errors.ts";
import { errorBodySchema } from "./schemas.ts";

/** Turns what went wrong on the wire into the typed errors of errors.ts. Pure. */

export function kindForStatus(status: number): PaletteErrorKind {
  if (status === 404) return "not_found";
  if (status === 401) return "unauthorized";
  if (status === 403) return "forbidden";
  if (status === 409) return "conflict";
  if (status === 429) return "rate_limited";
  if (status >= 500) return "server";
  return "bad_request";
}

const MAX_MESSAGE = 300;

/** A non-2xx answer; `bodyText` is Palette's `{code, message, ref}` when it sent one. */
export function errorFromResponse(
  status: number,
  bodyText: string,
  endpoint: string,
): PaletteError {
  let code: string | undefined;
  let message: string | undefined;
  let ref: string | undefined;
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(bodyText));
    if (parsed.success) {
      code = parsed.data.code ?? undefined;
      message = parsed.data.message ?? undefined;
      ref = parsed.data.ref ?? undefined;
    }
  } catch {
    // not JSON (a proxy's HTML page, say): the status alone has to do
  }
  const text = (message ?? `HTTP ${status}`).slice(0, MAX_MESSAGE);
  return new PaletteError(kindForStatus(status), status, code, text, ref, endpoint);
}

const TIMEOUT_CODES = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
  "ABORT_ERR",
]);

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current && typeof current === "object"; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * An exception from the transport (no HTTP answer). The message names the failure class and
 * code only: socket errors can carry addresses or headers, which do not belong in Slack.
 */
export function errorFromException(error: unknown, endpoint: string): PaletteError {
  if (error instanceof PaletteError) return error;
  const code = errorCode(error);
  if (code === "UND_ERR_RES_EXCEEDED_MAX_SIZE") {
    // not worth a retry: the same request would bring the same oversized answer
    return new PaletteError(
      "bad_request",
      0,
      "ResponseTooLarge",
      "Palette's answer was larger than the bot accepts; narrow the request (a project, a tag, fewer namespaces)",
      undefined,
      endpoint,
    );
  }
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return new PaletteError(
      "timeout",
      0,
      code,
      `Palette did not answer in time (${code})`,
      undefined,
      endpoint,
    );
  }
  return new PaletteError(
    "network",
    0,
    code,
    `Could not reach Palette (${code ?? "connection failed"})`,
    undefined,
    endpoint,
  );
}

/** `METHOD /path` for errors and logs, with the token in a refresh path masked. */
export function describeEndpoint(method: string, path: string): string {
  const bare = path.split("?")[0]!;
  return `${method} ${bare.replace(/^(\/v1\/auth\/refresh\/)[^/]+/, "$1***")}`;
}
