/**
 * Typed errors of the Palette client. Messages are written for the person reading them in Slack
 * or a log: they say what went wrong and what to do, and never carry a credential.
 */

export type PaletteErrorKind =
  | "not_found"
  | "unauthorized"
  | "forbidden"
  | "conflict"
  | "bad_request"
  | "rate_limited"
  | "server"
  | "network"
  | "timeout";

export class PaletteError extends Error {
  override readonly name = "PaletteError";

  constructor(
    readonly kind: PaletteErrorKind,
    /** HTTP status, 0 for network errors and time-outs */
    readonly status: number,
    /** Palette's error code, e.g. `ResourceNotFound` */
    readonly code: string | undefined,
    message: string,
    /** Palette's request reference, for a support ticket */
    readonly ref: string | undefined,
    /** `METHOD /v1/path` with the credential-bearing parts masked */
    readonly endpoint: string,
  ) {
    super(message);
  }
}

/** A 2xx response whose body did not have the shape the bot reads. */
export class PaletteSchemaError extends Error {
  override readonly name = "PaletteSchemaError";

  constructor(
    readonly endpoint: string,
    /** dotted path of the first offending field, e.g. `items.3.metadata.uid` */
    readonly field: string,
    readonly problem: string,
  ) {
    super(`Palette answered ${endpoint} with an unexpected shape at \`${field}\`: ${problem}`);
  }
}

/** What to tell a user about any error that came out of the Palette client. */
export function describeForUser(error: unknown): string {
  if (error instanceof PaletteError) {
    // the bot's own refusal, not Palette's: its message already says what to do
    if (error.code === "ResponseTooLarge") return error.message;
    switch (error.kind) {
      case "not_found":
        return "Not found in Palette. Check the name or UID (`/palette clusters` lists them).";
      case "unauthorized":
        return "Palette rejected the bot's credentials: check PALETTE_API_KEY (or PALETTE_EMAIL/ORG/PASSWORD).";
      case "forbidden":
        return "The bot's Palette account is not allowed to do that in this project. Ask a Palette admin to grant its role.";
      case "rate_limited":
        return "Palette is rate-limiting us; we retried and it still refused. Try again in a minute.";
      case "conflict":
      case "bad_request":
        return `Palette refused the request: ${error.message}`;
      case "server":
        return `Palette had an internal error (ref ${error.ref ?? "n/a"}). Try again shortly.`;
      case "network":
      case "timeout":
        return "Palette did not answer in time. Try again shortly; if it persists check PALETTE_API_URL.";
    }
  }
  if (error instanceof PaletteSchemaError) {
    return "Palette answered in a shape the bot does not understand; the details are in the bot's log.";
  }
  return "Something went wrong on our side; the details are in the bot's log.";
}
