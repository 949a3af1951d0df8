import { z } from "zod";
import type { ApiHandler } from "./api-context.ts";
import { ApiError, type Reply } from "./http-util.ts";
import { roleIn, type SimUser, type UserDirectory } from "./identity.ts";
import type { Router } from "./routes.ts";
import type { SimState } from "./state.ts";
import type { SimulatorCredentials } from "./types.ts";

/**
 * Palette's identity endpoints as the bot meets them (palette-apis-spec.json): who am I
 * (`GET /v1/users/info`), a user and their projects, users by e-mail (`POST /v1/users/summary`),
 * and API keys created for a user (`POST /v1/apiKeys`), listed (`GET /v1/apiKeys`) and deleted
 * (`DELETE /v1/apiKeys/{uid}`).
 * A user may read themselves and mint or delete their own keys; a tenant admin anyone's.
 */

export const SIM_TENANT_UID = "5f1e0a7e0a0a0a0a0a0a0a0a";

const ROLE_NAMES = { viewer: "Project Viewer", editor: "Project Editor", admin: "Project Admin" };

/** the tenant role the service account holds (GET /v1/users/{uid}/roles) */
const TENANT_ADMIN = { uid: "tenant-admin", name: "Tenant Admin" };

/**
 * What each built-in role allows (GET /v1/roles/{uid}), in Palette's `resourceKey.operation`
 * form, as far as the bot's calls go; rbac.ts enforces the same split (a viewer reads, an
 * editor also creates, updates and deletes clusters and downloads their kubeconfigs).
 */
const READS = ["cluster.get", "cluster.list", "clusterProfile.get", "clusterProfile.list"];
const WRITES = [
  "cluster.create",
  "cluster.update",
  "cluster.delete",
  "cluster.adminKubeconfigDownload",
];
const ROLE_PERMISSIONS: Record<string, { name: string; scope: string; permissions: string[] }> = {
  viewer: { name: ROLE_NAMES.viewer, scope: "project", permissions: READS },
  editor: { name: ROLE_NAMES.editor, scope: "project", permissions: [...READS, ...WRITES] },
  admin: {
    name: ROLE_NAMES.admin,
    scope: "project",
    permissions: [...READS, ...WRITES, "project.get", "project.update"],
  },
  [TENANT_ADMIN.uid]: {
    name: TENANT_ADMIN.name,
    scope: "tenant",
    permissions: ["project.create", "project.list", "user.list", "role.list", "tenant.get"],
  },
};

const apiKeyBody = z.object({
  metadata: z
    .object({ name: z.string().min(1) })
    .partial()
    .nullish(),
  spec: z.object({ userUid: z.string().min(1), expiry: z.string().nullish() }),
});

const usersSummaryBody = z
  .object({
    filter: z
      .object({
        emailId: z.object({ eq: z.string().nullish() }).partial().nullish(),
      })
      .partial()
      .nullish(),
  })
  .partial()
  .nullish();

export interface IdentityRouteDeps {
  state: SimState;
  users: UserDirectory;
  credentials: SimulatorCredentials;
}

/** Adds the identity routes; `caller` is who the request authenticated as. */
export function addIdentityRoutes(router: Router<ApiHandler>, deps: IdentityRouteDeps): void {
  const { users, state, credentials } = deps;
  const ok = (body: unknown, status = 200): Reply => ({ status, body });
  const self = (caller: SimUser, uid: string) => {
    if (!caller.tenantAdmin && caller.uid !== uid) {
      throw new ApiError(403, "Forbidden", `User '${caller.name}' may not read another user`);
    }
    const user = users.user(uid);
    if (!user) throw new ApiError(404, "ResourceNotFound", `User '${uid}' not found`);
    return user;
  };
  const userObject = (user: SimUser) => {
    const [firstName, ...last] = user.name.split(" ");
    return {
      metadata: { uid: user.uid, name: user.name },
      spec: { emailId: user.email, firstName, lastName: last.join(" ") },
      status: { isActive: true },
    };
  };

  router.add("GET", "/v1/users/info", (ctx) =>
    ok({ userUid: ctx.caller.uid, orgName: credentials.org, tenantUid: SIM_TENANT_UID }),
  );
  router.add("POST", "/v1/users/summary", async (ctx) => {
    if (!ctx.caller.tenantAdmin) {
      throw new ApiError(403, "Forbidden", `User '${ctx.caller.name}' may not list users`);
    }
    const parsed = usersSummaryBody.safeParse(await ctx.body());
    if (!parsed.success)
      throw new ApiError(400, "InvalidRequest", "body is not v1UsersSummarySpec");
    const email = parsed.data?.filter?.emailId?.eq?.toLowerCase();
    const items = users
      .users()
      .filter((user) => user !== users.serviceAccount)
      .filter((user) => email === undefined || user.email.toLowerCase() === email)
      .map(userObject);
    return ok({ items });
  });
  router.add("GET", "/v1/users/:uid", (ctx) =>
    ok(userObject(self(ctx.caller, ctx.params.uid ?? ""))),
  );
  router.add("GET", "/v1/users/:uid/projects", (ctx) => {
    const user = self(ctx.caller, ctx.params.uid ?? "");
    const projects = state.fleet.projects.flatMap((project) => {
      const role = roleIn(user, project.uid);
      return role
        ? [{ uid: project.uid, name: project.name, roles: [{ uid: role, name: ROLE_NAMES[role] }] }]
        : [];
    });
    return ok({ projects });
  });
  router.add("GET", "/v1/users/:uid/roles", (ctx) => {
    const user = self(ctx.caller, ctx.params.uid ?? "");
    return ok({ roles: user.tenantAdmin ? [TENANT_ADMIN] : [], inheritedRoles: [] });
  });
  router.add("GET", "/v1/roles/:uid", (ctx) => {
    const uid = ctx.params.uid ?? "";
    const role = ROLE_PERMISSIONS[uid];
    if (!role) throw new ApiError(404, "ResourceNotFound", `Role '${uid}' not found`);
    return ok({
      metadata: { uid, name: role.name },
      spec: { permissions: role.permissions, scope: role.scope, type: "system" },
      status: { isEnabled: true },
    });
  });
  router.add("POST", "/v1/apiKeys", async (ctx) => {
    const parsed = apiKeyBody.safeParse(await ctx.body());
    if (!parsed.success) throw new ApiError(400, "InvalidRequest", "body is not v1ApiKeyEntity");
    const { userUid, expiry } = parsed.data.spec;
    const name = parsed.data.metadata?.name ?? undefined;
    self(ctx.caller, userUid);
    const expiresAt = expiry ? Date.parse(expiry) : undefined;
    if (expiresAt !== undefined && !Number.isFinite(expiresAt)) {
      throw new ApiError(400, "InvalidRequest", "spec.expiry is not a date-time");
    }
    const key = users.issueKey(userUid, expiresAt, name);
    return ok({ apiKey: key.apiKey, uid: key.uid }, 201);
  });
  // v1ApiKeys: each key's v1ObjectMeta (name, uid) and v1ApiKeySpec (expiry, user)
  router.add("GET", "/v1/apiKeys", (ctx) =>
    ok({
      items: users.listKeys(ctx.caller).map((key) => ({
        metadata: { uid: key.uid, name: key.name },
        spec: {
          ...(key.expiresAt !== undefined ? { expiry: new Date(key.expiresAt).toISOString() } : {}),
          user: { uid: key.userUid },
        },
        status: { isActive: true },
      })),
    }),
  );
  router.add("DELETE", "/v1/apiKeys/:uid", (ctx) => {
    if (!users.revoke(ctx.params.uid ?? "", ctx.caller)) {
      throw new ApiError(404, "ResourceNotFound", `API key '${ctx.params.uid}' not found`);
    }
    return { status: 204 };
  });
}
