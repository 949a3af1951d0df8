import { unfilteredSearchBody } from "./search-body.ts";

/**
 * The Palette requests `palette-chatops doctor` makes, on the paths of Palette's published spec
 * (test/fixtures/palette-api): the login and whose credential it is, a token refresh, a cluster
 * search per watched project as the poll makes it, and the caller's roles and their permissions.
 * Raw on purpose: the doctor wants the status, the body and the `Date` header of each answer,
 * without the client's retries and re-logins (a retried 401 would hide the fault it looks for).
 * The sending itself (HTTP, the time bound) is the caller's.
 */

export interface DoctorReply {
  status: number;
  /** the parsed body; undefined when it was not JSON */
  json: unknown;
  /** epoch ms of the caller's clock when the answer came */
  receivedAt: number;
  /** the `Date` header */
  date?: string;
}

export type DoctorAnswer = { ok: true; value: DoctorReply } | { ok: false; reason: string };

export interface DoctorRequest {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: unknown;
  /** the request as an error may name it: never the token a refresh path carries */
  label: string;
}

export type DoctorSend = (request: DoctorRequest) => Promise<DoctorAnswer>;

/** How the doctor's lines name the two login requests. */
export const DOCTOR_ENDPOINTS = {
  login: "POST /v1/auth/authenticate",
  whoAmI: "GET /v1/users/info",
} as const;

export type PaletteAuth = Record<string, string>;

export function doctorPaletteApi(send: DoctorSend) {
  const get = (path: string, auth: PaletteAuth, label = `GET ${path}`) =>
    send({ method: "GET", path, headers: auth, label });
  return {
    /** POST /v1/auth/authenticate: a service account's token, in `Authorization` of the body */
    login: (email: string, org: string, password: string) =>
      send({
        method: "POST",
        path: "/v1/auth/authenticate",
        headers: {},
        body: { emailId: email, org, password },
        label: DOCTOR_ENDPOINTS.login,
      }),
    /** GET /v1/users/info: whose credential this is (userUid, orgName) */
    whoAmI: (auth: PaletteAuth) => get("/v1/users/info", auth, DOCTOR_ENDPOINTS.whoAmI),
    /** GET /v1/auth/refresh/{token}, the token also in Authorization */
    refresh: (token: string) =>
      get(
        `/v1/auth/refresh/${encodeURIComponent(token)}`,
        { Authorization: token },
        "GET /v1/auth/refresh/{token}",
      ),
    /** POST /v1/dashboard/spectroclusters/search, one item, in a project or tenant-wide */
    clusterSearch: (auth: PaletteAuth, projectUid: string | undefined) =>
      send({
        method: "POST",
        path: "/v1/dashboard/spectroclusters/search?limit=1",
        headers: { ...auth, ...(projectUid ? { ProjectUid: projectUid } : {}) },
        body: unfilteredSearchBody(),
        label: "POST /v1/dashboard/spectroclusters/search",
      }),
    /** GET /v1/users/{uid}/roles: the user's tenant roles (own and from teams) */
    tenantRoles: (auth: PaletteAuth, userUid: string) =>
      get(`/v1/users/${encodeURIComponent(userUid)}/roles`, auth),
    /** GET /v1/users/{uid}/projects: the user's roles per project */
    projectRoles: (auth: PaletteAuth, userUid: string) =>
      get(`/v1/users/${encodeURIComponent(userUid)}/projects`, auth),
    /** GET /v1/roles/{uid}: a role's permissions */
    role: (auth: PaletteAuth, roleUid: string) =>
      get(`/v1/roles/${encodeURIComponent(roleUid)}`, auth),
  };
}

export type DoctorPaletteApi = ReturnType<typeof doctorPaletteApi>;
