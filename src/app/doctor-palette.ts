import { z } from "zod";
import type { Config } from "../config.ts";
import {
  DOCTOR_ENDPOINTS,
  type DoctorAnswer,
  type DoctorPaletteApi,
  type DoctorReply,
  doctorPaletteApi,
  type PaletteAuth,
} from "../palette/doctor-api.ts";
import { bounded, type Probe, type ServerDate } from "./doctor-probe.ts";
import type { CheckLine } from "./doctor-report.ts";
import { skipped } from "./doctor-slack.ts";

/**
 * The doctor's Palette checks, over real HTTP with the bot's own credential, on the paths of
 * Palette's published spec (test/fixtures/palette-api): the login (`POST /v1/auth/authenticate`
 * or the API key) and whose credential it is (`GET /v1/users/info`), a token refresh
 * (`GET /v1/auth/refresh/{token}`), each watched project read as the poll reads it
 * (`POST /v1/dashboard/spectroclusters/search` with `ProjectUid`), and the rights the enabled
 * verbs need, from the caller's tenant roles (`GET /v1/users/{uid}/roles`), project roles
 * (`GET /v1/users/{uid}/projects`) and each role's permissions (`GET /v1/roles/{uid}`).
 */

const errorBody = z.object({ code: z.string().optional(), message: z.string().optional() });
const tokenBody = z.object({ Authorization: z.string().min(1) });
const userInfo = z.object({ userUid: z.string().min(1), orgName: z.string().optional() });
const uidName = z.object({ uid: z.string(), name: z.string().optional() });
const tenantRoles = z.object({
  roles: z.array(uidName).nullish(),
  inheritedRoles: z.array(uidName).nullish(),
});
const projectRoles = z.object({
  projects: z
    .array(
      z.object({
        uid: z.string(),
        name: z.string().optional(),
        roles: z.array(uidName).nullish(),
        inheritedRoles: z.array(uidName).nullish(),
      }),
    )
    .nullish(),
});
const role = z.object({
  metadata: z.object({ name: z.string().optional() }).nullish(),
  spec: z.object({ permissions: z.array(z.string()).nullish() }).nullish(),
});

/** Palette's built-in tenant role that may do everything in every project. */
const TENANT_ADMIN = "Tenant Admin";

export interface RequiredRight {
  /** what needs it: the reads, or the ALLOW_* variable of the verb */
  for: string;
  /** Palette's permission, `resourceKey.operation` */
  permission: string;
}

/**
 * The permissions the service account needs for what this configuration turns on. Pure.
 * With IDENTITY=linked or strict, a launch and a kubeconfig run as the person's own Palette
 * user (docs/identity.md), so the service account needs neither.
 */
export function requiredRights(config: Config): RequiredRight[] {
  const rights: RequiredRight[] = [
    { for: "the poll and the reads", permission: "cluster.list" },
    { for: "the poll and the reads", permission: "cluster.get" },
  ];
  const asService = config.identity.mode === "service";
  if (asService && config.allowLaunch.length > 0) {
    rights.push({ for: "ALLOW_LAUNCH", permission: "cluster.create" });
  }
  if (asService && config.allowKubeconfig.length > 0) {
    rights.push({ for: "ALLOW_KUBECONFIG", permission: "cluster.adminKubeconfigDownload" });
  }
  const changes = config.allowChanges;
  for (const verb of ["scale", "maintenance", "logs", "backup", "upgrade"] as const) {
    if (changes[verb].length > 0) {
      rights.push({ for: `ALLOW_${verb.toUpperCase()}`, permission: "cluster.update" });
    }
  }
  if (changes.delete.length > 0) rights.push({ for: "ALLOW_DELETE", permission: "cluster.delete" });
  return rights;
}

export interface RoleGrant {
  name: string;
  permissions: readonly string[];
}

/**
 * What each project lacks: the rights no role of the caller grants there (a tenant role counts
 * in every project; Tenant Admin grants everything). Pure.
 */
export function missingRights(
  required: readonly RequiredRight[],
  tenant: readonly RoleGrant[],
  perProject: ReadonlyMap<string, readonly RoleGrant[]>,
  projects: readonly string[],
): Map<string, RequiredRight[]> {
  const missing = new Map<string, RequiredRight[]>();
  if (tenant.some((grant) => grant.name === TENANT_ADMIN)) return missing;
  for (const project of projects) {
    const granted = new Set(
      [...tenant, ...(perProject.get(project) ?? [])].flatMap((grant) => grant.permissions),
    );
    const lacking = required.filter((right) => !granted.has(right.permission));
    if (lacking.length > 0) missing.set(project, lacking);
  }
  return missing;
}

type PaletteReply = DoctorReply;

export interface PaletteCheckResult {
  lines: CheckLine[];
  date?: ServerDate;
}

export async function paletteChecks(config: Config, probe: Probe): Promise<PaletteCheckResult> {
  const base = config.palette.apiUrl.replace(/\/+$/, "");
  const credentials = config.palette.credentials;
  const api = doctorPaletteApi(
    (request): Promise<DoctorAnswer> =>
      bounded(probe, `Palette ${request.label}`, async (signal) => {
        const headers: Record<string, string> = {
          Accept: "application/json",
          "User-Agent": "palette-chatops-doctor",
          ...request.headers,
        };
        if (request.body !== undefined) headers["Content-Type"] = "application/json";
        const response = await probe.fetch(`${base}${request.path}`, {
          method: request.method,
          headers,
          ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
          signal,
        });
        const receivedAt = probe.clock.now();
        const text = await response.text();
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        const date = response.headers.get("date") ?? undefined;
        return { status: response.status, json, receivedAt, ...(date ? { date } : {}) };
      }),
  );

  const lines: CheckLine[] = [];
  let date: ServerDate | undefined;
  const noteDate = (reply: PaletteReply) => {
    const at = reply.date ? Date.parse(reply.date) : Number.NaN;
    if (date === undefined && Number.isFinite(at)) {
      date = { server: at, receivedAt: reply.receivedAt };
    }
  };
  const credentialName =
    credentials.kind === "apiKey"
      ? "PALETTE_API_KEY"
      : "PALETTE_EMAIL/PALETTE_ORG/PALETTE_PASSWORD";

  // the login: an API key is its own credential; a service account logs in for a token
  let auth: PaletteAuth;
  let token: string | undefined;
  if (credentials.kind === "apiKey") {
    auth = { apiKey: credentials.apiKey.reveal() };
  } else {
    const login = await api.login(
      credentials.email,
      credentials.org,
      credentials.password.reveal(),
    );
    if (login.ok) noteDate(login.value);
    const parsed =
      login.ok && login.value.status === 200 ? tokenBody.safeParse(login.value.json) : undefined;
    if (!parsed?.success) {
      lines.push(
        loginFailure(login, config.palette.apiUrl, credentialName, DOCTOR_ENDPOINTS.login),
      );
      return { lines: [...lines, ...skipAfterLogin(credentials.kind)], ...(date ? { date } : {}) };
    }
    token = parsed.data.Authorization;
    auth = { Authorization: token };
  }
  const who = await api.whoAmI(auth);
  if (who.ok) noteDate(who.value);
  const info = who.ok && who.value.status === 200 ? userInfo.safeParse(who.value.json) : undefined;
  if (!info?.success) {
    lines.push(loginFailure(who, config.palette.apiUrl, credentialName, DOCTOR_ENDPOINTS.whoAmI));
    return { lines: [...lines, ...skipAfterLogin(credentials.kind)], ...(date ? { date } : {}) };
  }
  const org = info.data.orgName ? ` of org ${info.data.orgName}` : "";
  lines.push({
    check: "palette.login",
    status: "pass",
    result: `${credentialName} works: Palette user ${info.data.userUid}${org}`,
  });

  lines.push(await refreshLine(token, api));

  const projects = config.palette.projects;
  const projectLines = await Promise.all(
    (projects.length > 0 ? projects : [undefined]).map((project) =>
      projectLine(project, auth, api),
    ),
  );
  lines.push(...projectLines);

  // a project that cannot be read has its own failing line: its rights would only repeat it
  const readable = projects.filter((_, index) => projectLines[index]?.status === "pass");
  lines.push(await rightsLine(config, readable, info.data.userUid, auth, api));
  // the session token is no configured secret, so the doctor's redaction would not know it
  const scrub = (text: string) => (token ? text.split(token).join("[redacted]") : text);
  const safe = lines.map((line) => ({
    ...line,
    result: scrub(line.result),
    ...(line.fix !== undefined ? { fix: scrub(line.fix) } : {}),
  }));
  return { lines: safe, ...(date ? { date } : {}) };
}

function paletteSays(reply: PaletteReply): string {
  const parsed = errorBody.safeParse(reply.json);
  const said = parsed.success
    ? [parsed.data.code, parsed.data.message].filter(Boolean).join(": ")
    : "";
  return said ? `${reply.status} (${said})` : `${reply.status}`;
}

function loginFailure(
  answer: DoctorAnswer,
  apiUrl: string,
  credentialName: string,
  endpoint: string,
): CheckLine {
  if (!answer.ok) {
    return {
      check: "palette.login",
      status: "fail",
      result: `Palette did not answer ${endpoint} at ${apiUrl}: ${answer.reason}`,
      fix: "check PALETTE_API_URL (SaaS: https://api.spectrocloud.com; self-hosted: https://<your Palette host>) and the network path to it",
    };
  }
  const reply = answer.value;
  if (reply.status === 401 || reply.status === 403) {
    return {
      check: "palette.login",
      status: "fail",
      result: `Palette refused ${credentialName}: ${paletteSays(reply)}`,
      fix:
        credentialName === "PALETTE_API_KEY"
          ? "create an API key for the bot's Palette user (Tenant Settings → API Keys) and set PALETTE_API_KEY to it; a key expires and can be revoked"
          : "check the service account's e-mail, password and PALETTE_ORG (the organisation name at login)",
    };
  }
  if (reply.status === 429 || reply.status >= 500) {
    return {
      check: "palette.login",
      status: "fail",
      result: `Palette answered ${endpoint} with ${paletteSays(reply)}: it is busy or having trouble`,
      fix: "run the doctor again in a minute; if it persists, check Palette's status page or its operators",
    };
  }
  return {
    check: "palette.login",
    status: "fail",
    result: `${endpoint} at ${apiUrl} answered ${paletteSays(reply)}${reply.json === undefined ? ", not JSON" : ""}: this does not look like Palette's API`,
    fix: "set PALETTE_API_URL to Palette's API base (SaaS: https://api.spectrocloud.com; self-hosted: the API host, not the console's)",
  };
}

function skipAfterLogin(kind: "apiKey" | "serviceAccount"): CheckLine[] {
  return [
    kind === "apiKey" ? refreshNotNeeded() : skipped("palette.refresh", "palette.login"),
    skipped("palette.projects", "palette.login"),
    skipped("palette.rights", "palette.login"),
  ];
}

function refreshNotNeeded(): CheckLine {
  return {
    check: "palette.refresh",
    status: "skip",
    result: "not needed: an API key is not refreshed (only a service account's token is)",
  };
}

async function refreshLine(token: string | undefined, api: DoctorPaletteApi): Promise<CheckLine> {
  if (token === undefined) return refreshNotNeeded();
  const answer = await api.refresh(token);
  const ok =
    answer.ok && answer.value.status === 200 && tokenBody.safeParse(answer.value.json).success;
  if (ok) return { check: "palette.refresh", status: "pass", result: "the login token refreshes" };
  return {
    check: "palette.refresh",
    status: "warn",
    result: `the token refresh failed (${answer.ok ? paletteSays(answer.value) : answer.reason}): the bot logs in again instead, every TOKEN_REFRESH_SCHEDULE`,
    fix: "check that Palette allows token refresh for the service account; an API key (PALETTE_API_KEY) needs none",
  };
}

async function projectLine(
  project: string | undefined,
  auth: Record<string, string>,
  api: DoctorPaletteApi,
): Promise<CheckLine> {
  const check = project === undefined ? "palette.projects" : `palette.project ${project}`;
  const answer = await api.clusterSearch(auth, project);
  if (!answer.ok) {
    return {
      check,
      status: "fail",
      result: `Palette did not answer the cluster search: ${answer.reason}`,
      fix: "Palette is slow or unreachable; run the doctor again, and check Palette's status",
    };
  }
  const reply = answer.value;
  if (reply.status === 200) {
    return {
      check,
      status: "pass",
      result:
        project === undefined
          ? "PALETTE_PROJECTS is empty: the whole tenant is watched, and readable"
          : "the project's clusters are readable",
    };
  }
  if (reply.status === 404) {
    return {
      check,
      status: "fail",
      result: `Palette has no such project: ${paletteSays(reply)}`,
      fix: "PALETTE_PROJECTS wants project UIDs (24 hex characters, in the project's console URL), not names",
    };
  }
  if (reply.status === 403) {
    return {
      check,
      status: "fail",
      result: `the service account may not read this project: ${paletteSays(reply)}`,
      fix: "give the bot's Palette user a role in the project (Project Viewer at least; see docs/troubleshooting.md), or drop the project from PALETTE_PROJECTS",
    };
  }
  return {
    check,
    status: "fail",
    result: `the cluster search answered ${paletteSays(reply)}`,
    fix: "run the doctor again; if it persists, check Palette's status",
  };
}

/** At most this many roles are read (a user has a handful; a tenant's roles are tens). */
const MAX_ROLES = 40;

async function rightsLine(
  config: Config,
  /** the watched projects that could be read; empty with PALETTE_PROJECTS unset */
  readable: readonly string[],
  userUid: string,
  auth: Record<string, string>,
  api: DoctorPaletteApi,
): Promise<CheckLine> {
  const required = requiredRights(config);
  const check = "palette.rights";
  const unread = (what: string, answer: DoctorAnswer): CheckLine => ({
    check,
    status: "warn",
    result: `could not read ${what} (${answer.ok ? paletteSays(answer.value) : answer.reason}), so the rights for ${[...new Set(required.map((right) => right.for))].join(", ")} are unchecked`,
    fix: `check by hand that the bot's Palette user has ${[...new Set(required.map((right) => right.permission))].join(", ")} in each watched project`,
  });
  const [tenantAnswer, projectsAnswer] = await Promise.all([
    api.tenantRoles(auth, userUid),
    api.projectRoles(auth, userUid),
  ]);
  const tenant =
    tenantAnswer.ok && tenantAnswer.value.status === 200
      ? tenantRoles.safeParse(tenantAnswer.value.json)
      : undefined;
  if (!tenant?.success) return unread("the user's tenant roles", tenantAnswer);
  const perProject =
    projectsAnswer.ok && projectsAnswer.value.status === 200
      ? projectRoles.safeParse(projectsAnswer.value.json)
      : undefined;
  if (!perProject?.success) return unread("the user's project roles", projectsAnswer);

  const tenantRefs = [...(tenant.data.roles ?? []), ...(tenant.data.inheritedRoles ?? [])];
  const projectEntries = perProject.data.projects ?? [];
  const roleUids = [
    ...new Set([
      ...tenantRefs.map((ref) => ref.uid),
      ...projectEntries.flatMap((entry) =>
        [...(entry.roles ?? []), ...(entry.inheritedRoles ?? [])].map((ref) => ref.uid),
      ),
    ]),
  ].slice(0, MAX_ROLES);
  const grants = new Map<string, RoleGrant>();
  // Tenant Admin is known by name: no need to read its (tenant-scope) permissions
  const isAdmin = tenantRefs.some((ref) => ref.name === TENANT_ADMIN);
  if (!isAdmin) {
    // all at once: one bound for them all, not one per role
    const answers = await Promise.all(roleUids.map((roleUid) => api.role(auth, roleUid)));
    for (const [index, answer] of answers.entries()) {
      const roleUid = roleUids[index]!;
      const parsed =
        answer.ok && answer.value.status === 200 ? role.safeParse(answer.value.json) : undefined;
      if (!parsed?.success) return unread(`role ${roleUid}`, answer);
      grants.set(roleUid, {
        name: parsed.data.metadata?.name ?? roleUid,
        permissions: parsed.data.spec?.permissions ?? [],
      });
    }
  }
  const grantOf = (ref: { uid: string; name?: string }): RoleGrant =>
    grants.get(ref.uid) ?? { name: ref.name ?? ref.uid, permissions: [] };
  const tenantGrants = tenantRefs.map(grantOf);
  const projectGrants = new Map(
    projectEntries.map((entry) => [
      entry.uid,
      [...(entry.roles ?? []), ...(entry.inheritedRoles ?? [])].map(grantOf),
    ]),
  );
  const watched =
    config.palette.projects.length > 0 ? readable : projectEntries.map((entry) => entry.uid);
  const missing = missingRights(required, tenantGrants, projectGrants, watched);
  const needs = [...new Set(required.map((right) => right.permission))].join(", ");
  if (missing.size === 0) {
    return {
      check,
      status: "pass",
      result: isAdmin
        ? `the bot's Palette user is ${TENANT_ADMIN}: every right the enabled verbs need (${needs})`
        : `the enabled verbs' rights are granted in every watched project (${needs})`,
    };
  }
  const said = [...missing.entries()].map(([project, lacking]) => {
    const roles = (projectGrants.get(project) ?? []).map((grant) => grant.name);
    const detail = lacking.map((right) => `${right.permission} (${right.for})`).join(", ");
    return `in project ${project} (roles: ${roles.length > 0 ? roles.join(", ") : "none"}) ${detail}`;
  });
  return {
    check,
    status: "fail",
    result: `the bot's Palette user lacks rights the enabled verbs need: ${said.join("; ")}`,
    fix: "give the bot's Palette user a role with those permissions in each project (Project Editor covers them), or unset the ALLOW_* variable of a verb it should not do",
  };
}
