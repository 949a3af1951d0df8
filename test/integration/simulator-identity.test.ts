import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import {
  requestDefinition,
  responseDefinition,
  schemaErrors,
} from "../support/simulator-openapi.ts";

/**
 * The simulator's users, their keys and Palette's RBAC on the endpoints the bot uses: each
 * identity answer is checked against its definition in the OpenAPI subset, and each refusal is
 * the one a person with that role would meet.
 */

let sim: RunningSimulator;
let first: string;
let second: string;
const clock = new ManualClock(Date.UTC(2026, 10, 24, 12));

async function call(
  apiKey: string,
  method: string,
  path: string,
  body?: unknown,
  projectUid?: string,
) {
  const response = await fetch(`${sim.url}${path}`, {
    method,
    headers: {
      apiKey,
      accept: "application/json",
      ...(projectUid ? { ProjectUid: projectUid } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  let json: Record<string, unknown> | undefined;
  try {
    json = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  } catch {
    json = undefined; // a kubeconfig is YAML
  }
  return { status: response.status, json };
}

beforeAll(async () => {
  sim = await startSimulator({ clusters: 30, seed: 5, clock });
  [first, second] = sim.control.projects() as [string, string];
});
afterAll(async () => sim?.close());

describe("simulator identities", () => {
  it("says who a key belongs to, and the user's name, e-mail and projects", async () => {
    const key = sim.control.issueUserKey("viewer@example.com");
    const info = await call(key, "GET", "/v1/users/info");
    expect(info.status).toBe(200);
    expect(schemaErrors(responseDefinition("get", "/v1/users/info"), info.json)).toEqual([]);
    const uid = String(info.json!.userUid);
    const user = await call(key, "GET", `/v1/users/${uid}`);
    expect(schemaErrors(responseDefinition("get", "/v1/users/{uid}"), user.json)).toEqual([]);
    expect(user.json).toMatchObject({
      metadata: { name: "Vera Viewer" },
      spec: { emailId: "viewer@example.com" },
    });
    const projects = await call(key, "GET", `/v1/users/${uid}/projects`);
    expect(
      schemaErrors(responseDefinition("get", "/v1/users/{uid}/projects"), projects.json),
    ).toEqual([]);
    expect((projects.json!.projects as unknown[]).length).toBe(3);
    // another user's record is not a viewer's to read
    expect((await call(key, "GET", `/v1/users/${sim.credentials.apiKey}`)).status).toBe(403);
  });

  it("mints a key for a user found by e-mail, which works until it expires or is deleted", async () => {
    const admin = sim.credentials.apiKey;
    const search = { filter: { emailId: { eq: "editor@example.com" } } };
    expect(schemaErrors(requestDefinition("post", "/v1/users/summary"), search)).toEqual([]);
    const found = await call(admin, "POST", "/v1/users/summary", search);
    expect(schemaErrors(responseDefinition("post", "/v1/users/summary"), found.json)).toEqual([]);
    const [editor] = found.json!.items as Array<{ metadata: { uid: string } }>;
    const body = {
      metadata: { name: "palette-chatops" },
      spec: {
        userUid: editor!.metadata.uid,
        expiry: new Date(clock.now() + 3_600_000).toISOString(),
      },
    };
    expect(schemaErrors(requestDefinition("post", "/v1/apiKeys"), body)).toEqual([]);
    const minted = await call(admin, "POST", "/v1/apiKeys", body);
    expect(minted.status).toBe(201);
    expect(schemaErrors(responseDefinition("post", "/v1/apiKeys"), minted.json)).toEqual([]);
    const key = String(minted.json!.apiKey);
    expect((await call(key, "GET", "/v1/users/info")).json!.userUid).toBe(editor!.metadata.uid);
    expect(sim.control.liveUserKeys("editor@example.com")).toBe(1);
    expect((await call(admin, "DELETE", `/v1/apiKeys/${minted.json!.uid}`)).status).toBe(204);
    expect((await call(key, "GET", "/v1/users/info")).status).toBe(401);
    const expiring = sim.control.issueUserKey("editor@example.com", clock.now() + 1_000);
    clock.advance(1_000);
    expect((await call(expiring, "GET", "/v1/users/info")).status).toBe(401);
    // a user may not list the tenant's users
    expect((await call(key, "POST", "/v1/users/summary", search)).status).toBe(401);
    const viewer = sim.control.issueUserKey("viewer@example.com");
    expect((await call(viewer, "POST", "/v1/users/summary", search)).status).toBe(403);
  });

  it("lets a viewer read but not download a kubeconfig or create a cluster; an editor may", async () => {
    const running = sim.control.clusters(first).find((c) => c.state === "Running")!;
    const viewer = sim.control.issueUserKey("viewer@example.com");
    const editor = sim.control.issueUserKey("editor@example.com");
    expect(
      (await call(viewer, "GET", `/v1/spectroclusters/${running.uid}`, undefined, first)).status,
    ).toBe(200);
    const refused = await call(
      viewer,
      "GET",
      `/v1/spectroclusters/${running.uid}/assets/kubeconfig`,
    );
    expect(refused.status).toBe(403);
    expect(String(refused.json!.message)).toContain("(viewer) may not download kubeconfigs");
    expect(
      (await call(editor, "GET", `/v1/spectroclusters/${running.uid}/assets/kubeconfig`)).status,
    ).toBe(200);
    expect((await call(viewer, "POST", "/v1/spectroclusters/aws", {}, first)).status).toBe(403);
  });

  it("shows a one-project user only that project's clusters, and refuses the others", async () => {
    const solo = sim.control.issueUserKey("solo@example.com");
    const search = await call(solo, "POST", "/v1/dashboard/spectroclusters/search?limit=50", {});
    const items = search.json!.items as Array<{ specSummary: { projectMeta: { uid: string } } }>;
    expect(items.length).toBe(sim.control.clusters(first, { includeDeleted: true }).length);
    expect(new Set(items.map((item) => item.specSummary.projectMeta.uid))).toEqual(
      new Set([first]),
    );
    const stranger = sim.control.clusters(second)[0]!;
    expect((await call(solo, "GET", `/v1/spectroclusters/${stranger.uid}`)).status).toBe(403);
    expect(
      (await call(solo, "GET", `/v1/spectroclusters/${stranger.uid}`, undefined, second)).status,
    ).toBe(403);
  });
  it("says what a user's roles allow: tenant roles, and each role's permissions", async () => {
    const admin = await call(sim.credentials.apiKey, "GET", "/v1/users/info");
    const adminUid = String(admin.json?.userUid);
    const tenant = await call(sim.credentials.apiKey, "GET", `/v1/users/${adminUid}/roles`);
    expect(tenant.status).toBe(200);
    expect(schemaErrors(responseDefinition("get", "/v1/users/{uid}/roles"), tenant.json)).toEqual(
      [],
    );
    expect(tenant.json?.roles).toEqual([{ uid: "tenant-admin", name: "Tenant Admin" }]);

    const key = sim.control.issueUserKey("viewer@example.com");
    const viewerUid = String((await call(key, "GET", "/v1/users/info")).json?.userUid);
    expect((await call(key, "GET", `/v1/users/${viewerUid}/roles`)).json?.roles).toEqual([]);
    const projects = await call(key, "GET", `/v1/users/${viewerUid}/projects`);
    const listed = projects.json as { projects: Array<{ roles: Array<{ uid: string }> }> };
    const roleUid = listed.projects[0]!.roles[0]!.uid;
    const role = await call(key, "GET", `/v1/roles/${roleUid}`);
    expect(role.status).toBe(200);
    expect(schemaErrors(responseDefinition("get", "/v1/roles/{uid}"), role.json)).toEqual([]);
    const permissions = (role.json?.spec as { permissions: string[] } | undefined)?.permissions;
    expect(permissions).toContain("cluster.list");
    expect(permissions).not.toContain("cluster.create");
    expect((await call(key, "GET", "/v1/roles/no-such-role")).status).toBe(404);
  });
});
