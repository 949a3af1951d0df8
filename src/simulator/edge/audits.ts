import { z } from "zod";
import { AUDIT_ACTION_TYPES, type AuditBook, auditActor, type SimAuditEntry } from "../audit.ts";
import { ApiError, type Reply } from "../http-util.ts";
import type { SimUser } from "../identity.ts";
import type { Router } from "../routes.ts";
import type { EdgeBook } from "./book.ts";

/**
 * Palette's audit of an edge host (issue 39, `why <edge host>`): people and services change a
 * host in the console (its tags, its pairing, its deletion), and Palette's audit keeps those as
 * entries whose resource is the host (`kind: edgehost`), read through the same `GET /v1/audits`
 * with `resourceUid`. Tests and the demo add them with `POST /__sim/edge/hosts/<uid>/audits`.
 */

export const edgeAuditSchema = z.object({
  actionType: z.enum(AUDIT_ACTION_TYPES),
  actionMsg: z.string(),
  email: z.string().min(1).optional(),
  actorType: z.enum(["user", "system", "service"]).optional(),
  serviceName: z.string().optional(),
  at: z.number().optional(),
});
export type EdgeAuditInput = z.infer<typeof edgeAuditSchema>;

export function addEdgeHostAudit(
  book: AuditBook,
  edge: EdgeBook,
  userByEmail: (email: string) => SimUser | undefined,
  hostUid: string,
  input: EdgeAuditInput,
): SimAuditEntry {
  const host = edge.host(hostUid);
  if (!host) throw new ApiError(404, "ResourceNotFound", `Edge host '${hostUid}' not found`);
  let actor: SimAuditEntry["actor"];
  try {
    actor = auditActor(input, userByEmail);
  } catch (error) {
    throw new ApiError(400, "InvalidRequest", (error as Error).message);
  }
  return book.add({
    at: input.at ?? edge.clock.now(),
    actionType: input.actionType,
    actor,
    projectUid: host.projectUid,
    resource: { kind: "edgehost", name: host.name, uid: host.uid },
    actionMsg: input.actionMsg,
  });
}

type ControlHandler = (
  params: Record<string, string>,
  body: unknown,
  query: URLSearchParams,
) => Reply;

export function addEdgeAuditRoute(
  router: Router<ControlHandler>,
  add: (hostUid: string, input: EdgeAuditInput) => void,
): void {
  router.add("POST", "/__sim/edge/hosts/:uid/audits", (params, body) => {
    const parsed = edgeAuditSchema.safeParse(body ?? {});
    if (!parsed.success) {
      throw new ApiError(
        400,
        "InvalidRequest",
        z.prettifyError(parsed.error).replaceAll("\n", " "),
      );
    }
    add(params.uid ?? "", parsed.data);
    return { status: 201, body: { ok: true } };
  });
}
