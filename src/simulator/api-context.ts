import type { Reply } from "./http-util.ts";
import type { SimUser } from "./identity.ts";
import type { Params } from "./routes.ts";

/** What a Palette API route handler gets: the request, its scope and who made it. */
export interface ApiContext {
  params: Params;
  query: URLSearchParams;
  /** the ProjectUid scope (header or query); undefined = tenant */
  projectUid: string | undefined;
  /** who the request authenticated as (the service account for its credentials) */
  caller: SimUser;
  body: () => Promise<unknown>;
}

export type ApiHandler = (ctx: ApiContext) => Reply | Promise<Reply>;
