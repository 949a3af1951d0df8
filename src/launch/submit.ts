import type { CommandDeps, Requester } from "../commands/types.ts";
import { describeForUser, PaletteError } from "../palette/errors.ts";
import {
  buildCreateBody,
  type CreateBody,
  type RawValues,
  redactBody,
} from "../palette/providers/index.ts";
import { isProvider, type Provider } from "../palette/providers-list.ts";
import { type LaunchRecord, LaunchStore } from "../store/launches.ts";
import { checkLaunchPermission, refusalLine } from "./permission.ts";

/**
 * One launch from validated form to Palette, shared by the Slack modal and the console prompts:
 * permission, validation, the idempotency claim in SQLite, the name check, the create call and
 * the audit record. It returns what happened; the edges decide how to show it.
 */

export interface LaunchSubmission {
  /** Slack view id (the same on a retry or double click); console: a fresh id per run */
  submissionKey: string;
  provider: string;
  projectUid?: string;
  raw: RawValues;
  requester: Requester;
}

export type LaunchOutcome =
  | { kind: "invalid"; errors: Record<string, string> }
  | { kind: "denied"; message: string }
  /** this submission was already taken (retry, double click): do nothing more */
  | { kind: "duplicate"; record: LaunchRecord }
  /** Palette said no; `errors` is keyed by the field the refusal is about */
  | { kind: "refused"; errors: Record<string, string>; message: string }
  | { kind: "created"; record: LaunchRecord; body: CreateBody };

/** the form field a Palette refusal is shown on when it is not about the name */
export const GENERAL_ERROR_FIELD = "provider";

export async function submitLaunch(
  submission: LaunchSubmission,
  deps: CommandDeps,
): Promise<LaunchOutcome> {
  const { requester } = submission;
  if (!isProvider(submission.provider)) {
    return { kind: "invalid", errors: { provider: "Pick a provider from the list." } };
  }
  const provider: Provider = submission.provider;
  const permission = await checkLaunchPermission(deps, requester.userId, provider);
  if (!permission.allowed) return { kind: "denied", message: refusalLine(permission) };
  // PALETTE_PROJECTS is the boundary: a crafted submission cannot launch into another project
  if (
    deps.projects.length > 0 &&
    (!submission.projectUid || !deps.projects.includes(submission.projectUid))
  ) {
    deps.audit.record({
      userId: requester.userId,
      action: "launch",
      target: `${provider} project:${(submission.projectUid ?? "tenant").slice(0, 64)}`,
      outcome: "denied",
      detail: JSON.stringify({ reason: "outside PALETTE_PROJECTS" }),
    });
    return {
      kind: "invalid",
      errors: { project: "Pick one of the projects this bot watches (PALETTE_PROJECTS)." },
    };
  }

  const built = buildCreateBody(provider, submission.raw);
  if (!built.ok) return { kind: "invalid", errors: built.errors };
  const { body } = built;
  const name = body.metadata.name;
  const projectUid = submission.projectUid ?? "";
  const scope = projectUid ? { projectUid } : {};
  const target = `${provider}/${name}`;
  const detail = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({ projectUid: projectUid || undefined, ...extra, body: redactBody(body) });

  const store = new LaunchStore(deps.db, deps.clock);
  const claim = store.reserve({
    submissionKey: submission.submissionKey,
    projectUid,
    provider,
    name,
    requester: requester.userId,
    channel: requester.channelId,
  });
  if (claim.kind === "same_submission") return { kind: "duplicate", record: claim.record };
  if (claim.kind === "name_in_flight") {
    return {
      kind: "invalid",
      errors: { name: `A launch of “${name}” is already in progress in this project.` },
    };
  }
  const { record } = claim;

  try {
    if (await nameTaken(deps, name, scope)) {
      store.release(record.id);
      return {
        kind: "invalid",
        errors: { name: `A cluster named “${name}” already exists in this project.` },
      };
    }
    const uid = await deps.palette.createCluster(provider, body, scope);
    store.created(record.id, uid);
    deps.audit.record({
      userId: requester.userId,
      action: "launch",
      target,
      outcome: "created",
      detail: detail({ clusterUid: uid }),
    });
    deps.logger.info({ provider, name, clusterUid: uid, projectUid }, "cluster launched");
    return { kind: "created", record: store.get(record.id)!, body };
  } catch (error) {
    store.release(record.id);
    const message = describeForUser(error);
    const rejected = error instanceof PaletteError && error.status >= 400 && error.status < 500;
    deps.audit.record({
      userId: requester.userId,
      action: "launch",
      target,
      outcome: rejected ? "rejected" : "failed",
      detail: detail({
        status: error instanceof PaletteError ? error.status : undefined,
        code: error instanceof PaletteError ? error.code : undefined,
      }),
    });
    deps.logger.warn({ err: error, provider, name }, "launch refused");
    const field =
      error instanceof PaletteError && error.kind === "conflict" ? "name" : GENERAL_ERROR_FIELD;
    return { kind: "refused", errors: { [field]: message }, message };
  }
}

/** true when a live cluster of that name exists in the scope (Deleted ones do not count) */
export async function nameTaken(
  deps: Pick<CommandDeps, "palette">,
  name: string,
  scope: { projectUid?: string },
): Promise<boolean> {
  for await (const cluster of deps.palette.searchAllClusters({ ...scope, name })) {
    if (cluster.metadata?.name === name && cluster.status?.state !== "Deleted") return true;
  }
  return false;
}
