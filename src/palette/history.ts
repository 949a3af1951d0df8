import { z } from "zod";
import type { TimelineEntry } from "../model/why.ts";
import {
  type eventsSchema,
  listMetaSchema,
  objectMetaSchema,
  type PaletteEvent,
} from "./schemas.ts";

/**
 * What Palette remembers of a cluster: its audit log (`GET /v1/audits`, v1Audits) and its events
 * (`GET /v1/events/components/spectrocluster/{uid}`, v1Events), one page of 50 at a time. The
 * schemas follow the spec's definitions (v1Audit, v1AuditSpec, v1AuditActor,
 * v1AuditResourceReference, v1UserMeta, v1ProjectMeta): unknown fields are dropped, never
 * rejected, and every field may be missing or null. The client (src/palette/client.ts) sends
 * the request; this module says what the request is and what the answer means.
 */

const str = z.string().nullish();

/** v1AuditActor: who did it; `actorType` user, system or service */
const auditActorSchema = z.object({
  actorType: str,
  serviceName: str,
  project: z.object({ name: str, uid: str }).nullish(),
  user: z.object({ emailId: str, firstName: str, lastName: str, org: str, uid: str }).nullish(),
});

/** v1Audit: metadata and v1AuditSpec */
export const auditSchema = z.object({
  metadata: objectMetaSchema.nullish(),
  spec: z
    .object({
      actionMsg: str,
      actionType: str,
      actor: auditActorSchema.nullish(),
      contentMsg: str,
      resource: z.object({ kind: str, label: str, name: str, uid: str }).nullish(),
      userMsg: str,
    })
    .nullish(),
});
export type PaletteAudit = z.infer<typeof auditSchema>;

/** v1Audits */
export const auditsSchema = z.object({
  items: z.array(auditSchema).nullish(),
  listmeta: listMetaSchema.nullish(),
});

/** The `actionType` query values the spec lists for GET /v1/audits. */
export const AUDIT_ACTION_TYPES = [
  "create",
  "update",
  "delete",
  "publish",
  "deploy",
  "activity",
  "action",
] as const;
export type AuditActionType = (typeof AUDIT_ACTION_TYPES)[number];

/** The filters of GET /v1/audits the bot uses (names as the spec's query parameters). */
export interface AuditQuery {
  resourceUid?: string;
  projectUid?: string;
  userUid?: string;
  actionType?: AuditActionType;
  /** epoch ms; sent as RFC 3339 */
  startTime?: number;
  endTime?: number;
  continue?: string;
  /** at most 50 (Palette's maximum) */
  limit?: number;
}

export const HISTORY_PAGE = 50;

const rfc3339 = (ms: number | undefined): string | undefined =>
  ms === undefined || !Number.isFinite(ms) ? undefined : new Date(ms).toISOString();

/** The query string of GET /v1/audits for these filters. */
export function auditsQuery(query: AuditQuery): Record<string, string | number | undefined> {
  return {
    resourceUid: query.resourceUid,
    projectUid: query.projectUid,
    userUid: query.userUid,
    actionType: query.actionType,
    startTime: rfc3339(query.startTime),
    endTime: rfc3339(query.endTime),
    limit: Math.max(1, Math.min(HISTORY_PAGE, Math.floor(query.limit ?? HISTORY_PAGE))),
    continue: query.continue,
  };
}

/**
 * The query string of one page of a cluster's events: newest first (the spec's `orderBy`), so a
 * reader that wants a time range stops at the first page that reaches past its start.
 */
export function clusterEventsQuery(
  continueToken: string | undefined,
  limit = HISTORY_PAGE,
): Record<string, string | number | undefined> {
  return {
    orderBy: "metadata.creationTimestamp=-1",
    limit: Math.max(1, Math.min(HISTORY_PAGE, Math.floor(limit))),
    continue: continueToken,
  };
}

/** one page, as PaletteApi's `Page` (not imported: api.ts imports this module) */
interface HistoryPage<T> {
  items: T[];
  continue?: string;
  total?: number;
}

const token = (value: string | null | undefined): string | undefined => (value ? value : undefined);

export function auditPage(body: z.infer<typeof auditsSchema>): HistoryPage<PaletteAudit> {
  const total = body.listmeta?.count ?? undefined;
  return {
    items: body.items ?? [],
    ...(token(body.listmeta?.continue) ? { continue: token(body.listmeta?.continue) } : {}),
    ...(typeof total === "number" ? { total } : {}),
  };
}

export function eventPage(body: z.infer<typeof eventsSchema>): HistoryPage<PaletteEvent> {
  const total = body.listmeta?.count ?? undefined;
  return {
    items: body.items,
    ...(token(body.listmeta?.continue) ? { continue: token(body.listmeta?.continue) } : {}),
    ...(typeof total === "number" ? { total } : {}),
  };
}

// --- Palette's records as entries of a cluster's story (src/model/why.ts)

/** audit action types that change a cluster (the likely cause considers these) */
const WRITE_ACTIONS = new Set(["update", "deploy", "action"]);

const at = (timestamp: string | null | undefined): number | undefined => {
  const parsed = Date.parse(timestamp ?? "");
  return Number.isNaN(parsed) ? undefined : parsed;
};

/** The actor as people name them: e-mail, else name, else the service, else "Palette". */
/**
 * Who an audit entry says acted: a person by e-mail (what `why` shows the one who asked), or with
 * `showEmail: false` by their name in Palette (a channel card: issue 31, WHY_SHOW_EMAIL)
 */
export function actorName(audit: PaletteAudit, options: { showEmail?: boolean } = {}): string {
  const actor = audit.spec?.actor;
  const kind = (actor?.actorType ?? "").toLowerCase();
  if (kind === "user" || (!kind && actor?.user)) {
    const user = actor?.user;
    const full = [user?.firstName, user?.lastName].filter(Boolean).join(" ");
    if (options.showEmail === false) return full || "a Palette user";
    return user?.emailId || full || user?.uid || "a Palette user";
  }
  if (kind === "service") return actor?.serviceName || "a Palette service";
  return "Palette";
}

/** an audit entry as `why` shows it to the one who asked: the actor by e-mail */
export function auditEntry(audit: PaletteAudit): TimelineEntry | undefined {
  return auditEntryAs(audit, {});
}

/** an audit entry, its actor named as `options` says (see actorName) */
export function auditEntryAs(
  audit: PaletteAudit,
  options: { showEmail?: boolean },
): TimelineEntry | undefined {
  const when = at(audit.metadata?.creationTimestamp);
  if (when === undefined) return undefined;
  const action = (audit.spec?.actionType ?? "").toLowerCase();
  return {
    at: when,
    source: "audit",
    who: { kind: "palette", name: actorName(audit, options) },
    what: action || "audit",
    message: audit.spec?.actionMsg || audit.spec?.contentMsg || audit.spec?.userMsg || "",
    write: WRITE_ACTIONS.has(action),
  };
}

export function severityOf(raw: string | null | undefined): "normal" | "warning" | "error" {
  const value = (raw ?? "").toLowerCase();
  if (value === "warning") return "warning";
  if (value === "error" || value === "critical") return "error";
  return "normal";
}

export function eventEntry(event: PaletteEvent): TimelineEntry | undefined {
  const when = at(event.metadata?.creationTimestamp);
  if (when === undefined) return undefined;
  return {
    at: when,
    source: "event",
    what: event.reason || "Event",
    message: event.message ?? "",
    severity: severityOf(event.severity),
    write: false,
  };
}
