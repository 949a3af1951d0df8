import { ApiError } from "./http-util.ts";
import { mayWrite, roleIn, type SimUser } from "./identity.ts";
import type { SimState } from "./state.ts";

/**
 * Palette's RBAC on the endpoints the bot uses, for a caller who is not a tenant admin: no role
 * in a project, no access to it (403); creating or deleting a cluster and reading its
 * kubeconfig need an editor's role there. Tenant-wide listings are filtered to the caller's
 * projects by their routes; the identity routes check their own subject.
 */

const CLUSTER_PATH = /^\/v1\/(?:dashboard\/)?spectroclusters\/([^/]+)(?:\/|$)/;

interface Action {
  /** the verb a refusal names */
  verb: string;
  write: boolean;
}

function actionOf(method: string, path: string): Action {
  if (method === "POST" && /^\/v1\/spectroclusters\/[^/]+$/.test(path)) {
    return { verb: "create clusters", write: true };
  }
  if (method === "DELETE" && /^\/v1\/spectroclusters\/[^/]+$/.test(path)) {
    return { verb: "delete clusters", write: true };
  }
  if (method === "PUT" && /^\/v1\/cloudconfigs\/.+\/machinePools\/[^/]+$/.test(path)) {
    return { verb: "update machine pools", write: true };
  }
  if (method === "POST" && /\/features\/backup\/onDemand$/.test(path)) {
    return { verb: "back up clusters", write: true };
  }
  if (method === "PUT" && /\/machines\/[^/]+\/maintenance$/.test(path)) {
    return { verb: "cordon machines", write: true };
  }
  if (
    method === "PATCH" &&
    /^\/v1\/spectroclusters\/[^/]+\/(repave\/approve|clusterConfig\/lifecycleConfig|profiles|k8certificates\/renew)$/.test(
      path,
    )
  ) {
    return { verb: "change clusters", write: true };
  }
  if (method === "GET" && /\/assets\/kubeconfig$/.test(path)) {
    return { verb: "download kubeconfigs", write: true };
  }
  return { verb: "read", write: false };
}

export function refusal(
  caller: SimUser,
  method: string,
  path: string,
  projectUid: string | undefined,
  state: SimState,
): ApiError | undefined {
  if (caller.tenantAdmin || path.startsWith("/v1/users/") || path.startsWith("/v1/apiKeys")) {
    return undefined;
  }
  const action = actionOf(method, path);
  // a cluster's own path scopes the request to its project, header or not
  const clusterUid = CLUSTER_PATH.exec(path)?.[1];
  const cluster = clusterUid && clusterUid !== "search" ? state.cluster(clusterUid) : undefined;
  const project = projectUid ?? cluster?.projectUid;
  if (project === undefined) {
    // tenant-wide: reads are filtered by their routes; a tenant-wide write is an admin's
    return action.write
      ? forbidden(`User '${caller.name}' may not ${action.verb} at tenant scope`)
      : undefined;
  }
  const role = roleIn(caller, project);
  if (role === undefined) {
    return forbidden(`User '${caller.name}' has no role in project '${project}'`);
  }
  if (action.write && !mayWrite(role)) {
    return forbidden(
      `User '${caller.name}' (${role}) may not ${action.verb} in project '${project}'`,
    );
  }
  return undefined;
}

/** Whether a tenant-wide listing shows the caller this project's items. */
export function sees(caller: SimUser, projectUid: string): boolean {
  return roleIn(caller, projectUid) !== undefined;
}

function forbidden(message: string): ApiError {
  return new ApiError(403, "Forbidden", message);
}
