import { frozen } from "../changes/guard.ts";
import { type Acting, actingDetail, actingFor, personalRefusal } from "../identity/acting.ts";
import { describeForUser, PaletteError } from "../palette/errors.ts";
import {
  buildCreateBody,
  type CreateBody,
  type RawValues,
  redactBody,
} from "../palette/providers/index.ts";
import { isProvider, type Provider } from "../palette/providers-list.ts";
import { AuditLog } from "../store/audit.ts";
import { type LaunchRecord, LaunchStore } from "../store/launches.ts";
import type { CommandDeps, Requester } from "../verb-kit/types.ts";
import { freezeRefusal } from "../views/change.ts";
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
  | { kind: "created"; record: LaunchRecord; body: CreateBody }
  /**
   * Palette created the cluster, but the store refused to record it: the reservation stays (the
   * name stays taken) until the tracker finds the cluster by name and follows it
   */
  | { kind: "unrecorded"; record: LaunchRecord; clusterUid: string }
  /**
   * the create went out and no answer says whether Palette acted (lost connection, time-out,
   * 5xx): the reservation stays until the tracker has asked Palette by name
   */
  | { kind: "unconfirmed"; record: LaunchRecord };

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
  // IDENTITY=linked: the create runs with the person's own key, so Palette's RBAC decides
  const acting = await actingFor(requester, deps.identity);
  if (acting.kind === "refused") return { kind: "denied", message: acting.reply.text };
  try {
    return await submitAs(submission, provider, deps, acting);
  } finally {
    if (acting.kind === "person") await acting.palette.close();
  }
}

async function submitAs(
  submission: LaunchSubmission,
  provider: Provider,
  deps: CommandDeps,
  acting: Exclude<Acting, { kind: "refused" }>,
): Promise<LaunchOutcome> {
  const { requester } = submission;
  const as = actingDetail(acting);
  // PALETTE_PROJECTS is the boundary: a crafted submission cannot launch into another project
  if (
    deps.projects.length > 0 &&
    (!submission.projectUid || !deps.projects.includes(submission.projectUid))
  ) {
    await deps.audit.record({
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

  const freeze = await frozen(deps, { projectUid: submission.projectUid });
  if (freeze) {
    await deps.audit.record({
      userId: requester.userId,
      action: "launch",
      target: `${provider} project:${(submission.projectUid ?? "tenant").slice(0, 64)}`,
      outcome: "denied",
      detail: JSON.stringify({ reason: "frozen", freezeId: freeze.id }),
    });
    return { kind: "denied", message: freezeRefusal(freeze).reason };
  }

  const built = buildCreateBody(provider, submission.raw);
  if (!built.ok) return { kind: "invalid", errors: built.errors };
  const { body } = built;
  const name = body.metadata.name;
  const projectUid = submission.projectUid ?? "";
  const scope = projectUid ? { projectUid } : {};
  const target = `${provider}/${name}`;
  const detail = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      projectUid: projectUid || undefined,
      ...as,
      ...extra,
      body: redactBody(body),
    });

  const store = new LaunchStore(deps.db, deps.clock);
  const claim = await store.reserve({
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

  let asked = false;
  let uid: string;
  try {
    if (await nameTaken(deps, name, scope)) {
      await releaseQuietly(store, record, deps);
      return {
        kind: "invalid",
        errors: { name: `A cluster named “${name}” already exists in this project.` },
      };
    }
    asked = true;
    const palette = acting.kind === "person" ? acting.palette : deps.palette;
    uid = await palette.createCluster(provider, body, scope);
  } catch (error) {
    if (asked && !createRefused(error)) {
      // Palette may well have made it: keep the name reserved and let the tracker look it up
      deps.logger.warn(
        { err: String(error), provider, name, launchId: record.id },
        "launch outcome unknown: Palette's answer to the create did not arrive",
      );
      return { kind: "unconfirmed", record };
    }
    await releaseQuietly(store, record, deps);
    const personal =
      acting.kind === "person" && deps.identity
        ? await personalRefusal(
            error,
            acting.link,
            "create clusters",
            projectUid || undefined,
            deps.identity,
          )
        : undefined;
    const message = personal?.text ?? describeForUser(error);
    const rejected = error instanceof PaletteError && error.status >= 400 && error.status < 500;
    await auditQuietly(deps, {
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

  // From here on Palette has the cluster: whatever the store does, nobody hears "failed".
  try {
    // the launch and its audit record land together, or neither does
    await deps.db.transaction(async (tx) => {
      if (!(await new LaunchStore(tx, deps.clock).created(record.id, uid, as.paletteUser))) {
        throw new Error("the reservation was no longer pending");
      }
      await new AuditLog(tx, deps.clock).record({
        userId: requester.userId,
        action: "launch",
        target,
        outcome: "created",
        detail: detail({ clusterUid: uid }),
      });
    });
  } catch (error) {
    deps.logger.error(
      { err: String(error), provider, name, clusterUid: uid, launchId: record.id },
      "Palette created the cluster but the store did not record it; it will be found by name",
    );
    return { kind: "unrecorded", record, clusterUid: uid };
  }
  deps.logger.info({ provider, name, clusterUid: uid, projectUid }, "cluster launched");
  return { kind: "created", record: (await store.get(record.id)) ?? record, body };
}

/**
 * Whether an error of the create call says Palette did not act: a 4xx refusal (429 included:
 * rate-limited before handling) or 503 (not serving), as in palette/retry.ts. Anything else
 * after the request went out (lost connection, time-out, 500/502/504, an unreadable 2xx) may
 * hide a created cluster.
 */
export function createRefused(error: unknown): boolean {
  if (!(error instanceof PaletteError)) return false;
  if (error.status === 503) return true;
  return error.status >= 400 && error.status < 500 && error.status !== 408;
}

/** a refused launch frees its name; if the store cannot, the tracker settles it later */
async function releaseQuietly(
  store: LaunchStore,
  record: LaunchRecord,
  deps: CommandDeps,
): Promise<void> {
  try {
    await store.release(record.id);
  } catch (error) {
    deps.logger.warn(
      { err: String(error), launchId: record.id },
      "launch reservation not released; it is settled against Palette later",
    );
  }
}

/** the refusal is what the user needs to hear; an audit write failing is the log's business */
async function auditQuietly(
  deps: CommandDeps,
  entry: Parameters<CommandDeps["audit"]["record"]>[0],
) {
  try {
    await deps.audit.record(entry);
  } catch (error) {
    deps.logger.error({ err: String(error), target: entry.target }, "audit record not written");
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
