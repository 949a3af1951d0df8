import { z } from "zod";
import type { ApiHandler } from "./api-context.ts";
import { badRequest, ok } from "./api-replies.ts";
import type { TokenStore } from "./auth.ts";
import { ApiError } from "./http-util.ts";
import type { Router } from "./routes.ts";
import type { SimulatorCredentials } from "./types.ts";

/**
 * Palette's session endpoints: log in with e-mail, organisation and password for a token, and
 * refresh a live token. Kept apart from the cluster routes: these are the only API routes a
 * caller reaches without credentials (server.ts never refuses `/v1/auth/` for its headers).
 */

export interface AuthRouteDeps {
  tokens: TokenStore;
  credentials: SimulatorCredentials;
}

const authBodySchema = z.object({
  emailId: z.string().min(1),
  org: z.string().optional(),
  password: z.string().min(1),
});

export function addAuthRoutes(router: Router<ApiHandler>, deps: AuthRouteDeps): void {
  const { tokens, credentials } = deps;
  router.add("POST", "/v1/auth/authenticate", async (ctx) => {
    const parsed = authBodySchema.safeParse(await ctx.body());
    if (!parsed.success) throw badRequest("emailId and password are required");
    const { emailId, org, password } = parsed.data;
    const orgMatches = org === undefined || org === "" || org === credentials.org;
    if (emailId !== credentials.email || password !== credentials.password || !orgMatches) {
      throw new ApiError(401, "InvalidCredentials", "email, organization or password is wrong");
    }
    return ok({ Authorization: tokens.issue(emailId), isMfa: false });
  });
  router.add("GET", "/v1/auth/refresh/:token", (ctx) => {
    const token = ctx.params.token ?? "";
    if (!tokens.isLive(token)) {
      throw new ApiError(401, "TokenExpired", "the token to refresh is expired or unknown");
    }
    return ok({ Authorization: tokens.issue(credentials.email), isMfa: false });
  });
}
