import { createHmac, randomBytes } from "node:crypto";
import type { Clock } from "../clock.ts";
import type { SimUser, UserDirectory } from "./identity.ts";
import type { SimulatorCredentials } from "./types.ts";

/**
 * Palette's two credentials: header `apiKey`, or header `Authorization` carrying the raw token
 * (no `Bearer`) issued by /v1/auth/authenticate. Tokens expire on the injected clock.
 */

export type AuthResult =
  /** `user`: whose credential it was (the service account for its key and its login tokens) */
  | { ok: true; kind: "apiKey" | "token"; user: SimUser }
  | { ok: false; kind: "apiKey" | "token" | "none"; code: string; message: string };

export class TokenStore {
  private readonly expiries = new Map<string, number>();
  private readonly secret = randomBytes(16);
  private counter = 0;

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  issue(subject: string): string {
    const now = this.clock.now();
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const header = b64({ alg: "HS256", typ: "JWT" });
    this.counter += 1;
    const payload = b64({
      sub: subject,
      iat: Math.floor(now / 1000),
      exp: Math.floor((now + this.ttlMs) / 1000),
      jti: this.counter,
    });
    const signature = createHmac("sha256", this.secret)
      .update(`${header}.${payload}`)
      .digest("base64url");
    const token = `${header}.${payload}.${signature}`;
    this.expiries.set(token, now + this.ttlMs);
    return token;
  }

  isLive(token: string): boolean {
    const expiry = this.expiries.get(token);
    return expiry !== undefined && this.clock.now() < expiry;
  }

  known(token: string): boolean {
    return this.expiries.has(token);
  }

  /** Every live token expires now (Palette restarted, or a session was revoked); returns how many. */
  expireAll(): number {
    const now = this.clock.now();
    let expired = 0;
    for (const [token, expiry] of this.expiries) {
      if (expiry <= now) continue;
      this.expiries.set(token, now);
      expired += 1;
    }
    return expired;
  }
}

export function authenticate(
  headers: Record<string, string | string[] | undefined>,
  credentials: SimulatorCredentials,
  tokens: TokenStore,
  users: UserDirectory,
): AuthResult {
  const apiKey = single(headers.apikey);
  const authorization = single(headers.authorization);
  if (apiKey !== undefined) {
    if (apiKey === credentials.apiKey) {
      return { ok: true, kind: "apiKey", user: users.serviceAccount };
    }
    const holder = users.holder(apiKey);
    return holder.ok
      ? { ok: true, kind: "apiKey", user: holder.user }
      : { ok: false, kind: "apiKey", code: "InvalidApiKey", message: holder.reason };
  }
  if (authorization !== undefined) {
    if (/^bearer\s/i.test(authorization)) {
      return {
        ok: false,
        kind: "token",
        code: "InvalidAuthToken",
        message: "send the raw token in Authorization, without the Bearer prefix",
      };
    }
    if (tokens.isLive(authorization)) {
      return { ok: true, kind: "token", user: users.serviceAccount };
    }
    return tokens.known(authorization)
      ? { ok: false, kind: "token", code: "TokenExpired", message: "the auth token has expired" }
      : {
          ok: false,
          kind: "token",
          code: "InvalidAuthToken",
          message: "the auth token is not valid",
        };
  }
  return {
    ok: false,
    kind: "none",
    code: "Unauthorized",
    message: "authentication required: send header apiKey or Authorization",
  };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
