import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.ts";
import { CLOUD_ACCOUNT_KINDS, PROVIDERS, type Provider } from "../../src/palette/providers-list.ts";
import { clusterSearchBody } from "../../src/palette/search-body.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { FleetCluster, RunningSimulator } from "../../src/simulator/types.ts";
import {
  loadExample,
  requestDefinition,
  responseDefinition,
  schemaErrors,
} from "../support/simulator-openapi.ts";

/**
 * Calls every endpoint the bot uses with plain fetch and checks each JSON body against the
 * real definition in test/fixtures/palette-api/openapi-subset.json.
 */

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

let sim: RunningSimulator;
const clock = new ManualClock(Date.UTC(2026, 0, 10, 12));

async function call(
  method: string,
  path: string,
  options: {
    body?: unknown;
    projectUid?: string;
    headers?: Record<string, string>;
    noApiKey?: boolean;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {
    ...(options.noApiKey ? {} : { apiKey: sim.credentials.apiKey }),
    accept: "application/json",
    ...(options.projectUid ? { ProjectUid: options.projectUid } : {}),
    ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
    ...options.headers,
  };
  const response = await fetch(`${sim.url}${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

function expectConforms(definition: string, body: unknown): void {
  expect(schemaErrors(definition, body)).toEqual([]);
}

async function expectOk(
  method: string,
  template: string,
  path: string,
  options: Parameters<typeof call>[2] = {},
): Promise<Answer> {
  const answer = await call(method, path, options);
  expect(answer.status, `${method} ${path}: ${answer.text.slice(0, 300)}`).toBeLessThan(300);
  expectConforms(responseDefinition(method.toLowerCase(), template), answer.json);
  return answer;
}

beforeAll(async () => {
  sim = await startSimulator({ clusters: 60, projects: 3, seed: 7, clock });
});
afterAll(async () => {
  await sim.close();
});

describe("request bodies a client sends", () => {
  it("the shared examples and our own bodies match the request definitions", () => {
    const search = requestDefinition("post", "/v1/dashboard/spectroclusters/search");
    expectConforms(search, loadExample("dashboard-spectroclusters-search.request.json"));
    expectConforms(search, clusterSearchBody(["dev", "team:core"]));
    expectConforms(search, {});
    const workloads = requestDefinition("post", "/v1/dashboard/spectroclusters/{uid}/workloads");
    expectConforms(workloads, loadExample("dashboard-spectroclusters-workloads.request.json"));
    expectConforms(workloads, { filter: { namespaces: [] } });
    const auth = requestDefinition("post", "/v1/auth/authenticate");
    expectConforms(auth, loadExample("auth-authenticate.request.json"));
    expectConforms(
      responseDefinition("post", "/v1/auth/authenticate"),
      loadExample("auth-authenticate.response.json"),
    );
    expectConforms("v1Error", loadExample("error.response.json"));
    expectConforms(
      "v1ListMetaData",
      (loadExample("list.listmeta.response-fragment.json") as { listmeta: unknown }).listmeta,
    );
  });

  it("rejects a body of the wrong shape (the validator is not vacuous)", () => {
    const search = requestDefinition("post", "/v1/dashboard/spectroclusters/search");
    expect(schemaErrors(search, { filter: { conjunction: "xor" } })).not.toEqual([]);
    expect(schemaErrors("v1SpectroClustersSummary", { items: "nope" })).not.toEqual([]);
  });
});

describe("auth", () => {
  it("issues, uses, refreshes and expires tokens; wrong password is 401", async () => {
    const { email, org, password } = sim.credentials;
    const login = await expectOk("POST", "/v1/auth/authenticate", "/v1/auth/authenticate", {
      body: { emailId: email, org, password },
      noApiKey: true,
    });
    const token = (login.json as { Authorization: string }).Authorization;
    expect(token.split(".")).toHaveLength(3);

    const withToken = await call("GET", "/v1/projects/alerts", {
      noApiKey: true,
      headers: { Authorization: token },
    });
    expect(withToken.status).toBe(200);

    const refreshed = await expectOk(
      "GET",
      "/v1/auth/refresh/{token}",
      `/v1/auth/refresh/${encodeURIComponent(token)}`,
    );
    const fresh = (refreshed.json as { Authorization: string }).Authorization;
    expect(fresh).not.toBe(token);

    const wrong = await call("POST", "/v1/auth/authenticate", {
      body: { emailId: email, org, password: "nope" },
    });
    expect(wrong.status).toBe(401);
    expectConforms("v1Error", wrong.json);

    clock.advance(15 * 60_000 + 1);
    const expired = await fetch(`${sim.url}/v1/projects/alerts`, {
      headers: { Authorization: fresh },
    });
    expect(expired.status).toBe(401);
    expectConforms("v1Error", await expired.json());
    const lateRefresh = await call("GET", `/v1/auth/refresh/${encodeURIComponent(fresh)}`);
    expect(lateRefresh.status).toBe(401);
  });

  it("answers 401 without credentials and with a wrong API key", async () => {
    const none = await fetch(`${sim.url}/v1/spectroclusters/x`);
    expect(none.status).toBe(401);
    expectConforms("v1Error", await none.json());
    const bad = await call("GET", "/v1/projects/alerts", { headers: { apiKey: "wrong" } });
    expect(bad.status).toBe(401);
  });
});

describe("clusters", () => {
  it("search pages through the whole tenant with valid pages; limit is clamped to 50", async () => {
    const seen: string[] = [];
    let token = "";
    for (let i = 0; i < 20; i++) {
      const path = `/v1/dashboard/spectroclusters/search?limit=7${token ? `&continue=${encodeURIComponent(token)}` : ""}`;
      const page = await expectOk("POST", "/v1/dashboard/spectroclusters/search", path, {
        body: clusterSearchBody(),
      });
      const body = page.json as {
        items: { metadata: { uid: string } }[];
        listmeta: { continue: string; count: number };
      };
      seen.push(...body.items.map((item) => item.metadata.uid));
      expect(body.listmeta.count).toBe(60);
      token = body.listmeta.continue;
      if (!token) break;
    }
    expect(new Set(seen).size).toBe(60);
    // without isDeleted = false, Palette also lists the soft-deleted clusters it keeps
    const withDeleted = await expectOk(
      "POST",
      "/v1/dashboard/spectroclusters/search",
      "/v1/dashboard/spectroclusters/search?limit=50&offset=50",
      { body: {} },
    );
    const rest = withDeleted.json as {
      items: { status: { state: string }; metadata: { deletionTimestamp?: string } }[];
      listmeta: { count: number };
    };
    expect(rest.listmeta.count).toBe(63);
    const deleted = rest.items.filter((item) => item.status.state === "Deleted");
    expect(deleted).toHaveLength(3);
    for (const item of deleted) expect(item.metadata.deletionTimestamp).toBeTruthy();
    const big = await call("POST", "/v1/dashboard/spectroclusters/search?limit=500", { body: {} });
    expect((big.json as { items: unknown[]; listmeta: { limit: number } }).items).toHaveLength(50);
    expect((big.json as { listmeta: { limit: number } }).listmeta.limit).toBe(50);
  });

  it("search by tag within a project returns only matching clusters of that project", async () => {
    const project = sim.control.projects()[1] as string;
    const expected = sim.control
      .clusters(project)
      .filter((c) => c.labels.dev === "spectro__tag" && c.state !== "Deleted")
      .map((c) => c.uid)
      .sort();
    const page = await expectOk(
      "POST",
      "/v1/dashboard/spectroclusters/search",
      "/v1/dashboard/spectroclusters/search?limit=50",
      { body: clusterSearchBody(["dev"]), projectUid: project },
    );
    const uids = (page.json as { items: { metadata: { uid: string } }[] }).items
      .map((item) => item.metadata.uid)
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    expect(uids).toEqual(expected);
  });

  it("every per-cluster endpoint conforms, for one cluster of each of the 11 providers", async () => {
    const running = sim.control.clusters().filter((c) => c.state === "Running");
    for (const provider of PROVIDERS) {
      const cluster = running.find((c) => c.provider === provider) as FleetCluster;
      expect(cluster, provider).toBeDefined();
      const scope = { projectUid: cluster.projectUid };
      const got = await expectOk(
        "GET",
        "/v1/spectroclusters/{uid}",
        `/v1/spectroclusters/${cluster.uid}?ProjectUid=${cluster.projectUid}`,
      );
      await expectOk(
        "GET",
        "/v1/spectroclusters/{uid}/status",
        `/v1/spectroclusters/${cluster.uid}/status`,
        scope,
      );
      const overview = await expectOk(
        "GET",
        "/v1/dashboard/spectroclusters/{uid}/overview",
        `/v1/dashboard/spectroclusters/${cluster.uid}/overview`,
        scope,
      );
      const status = (
        overview.json as {
          status: { health: { state: string }; kubeMeta: { kubernetesVersion: string } };
        }
      ).status;
      expect(status.health.state).toBe(cluster.health);
      expect(status.kubeMeta.kubernetesVersion).toMatch(/^1\.\d+\.\d+$/);

      const ref = (got.json as { spec: { cloudConfigRef: { kind: string; uid: string } } }).spec
        .cloudConfigRef;
      expect(ref.kind).toBe(provider);
      const config = await expectOk(
        "GET",
        `/v1/cloudconfigs/${provider}/{configUid}`,
        `/v1/cloudconfigs/${ref.kind}/${ref.uid}`,
        scope,
      );
      const pools = (
        config.json as { spec: { machinePoolConfig: { name: string; size: number }[] } }
      ).spec.machinePoolConfig;
      expect(pools.length).toBeGreaterThan(0);
      for (const pool of pools) {
        const machines = await expectOk(
          "GET",
          `/v1/cloudconfigs/${provider}/{configUid}/machinePools/{machinePoolName}/machines`,
          `/v1/cloudconfigs/${ref.kind}/${ref.uid}/machinePools/${pool.name}/machines`,
          scope,
        );
        expect((machines.json as { items: unknown[] }).items).toHaveLength(pool.size);
      }

      const workloads = await expectOk(
        "POST",
        "/v1/dashboard/spectroclusters/{uid}/workloads",
        `/v1/dashboard/spectroclusters/${cluster.uid}/workloads`,
        { ...scope, body: { filter: { namespaces: [] } } },
      );
      expect((workloads.json as { spec: { pods: unknown[] } }).spec.pods.length).toBeGreaterThan(0);
      for (const kind of ["pod", "deployment", "namespace"]) {
        await expectOk(
          "POST",
          `/v1/dashboard/spectroclusters/{uid}/workloads/${kind}`,
          `/v1/dashboard/spectroclusters/${cluster.uid}/workloads/${kind}`,
          { ...scope, body: { filter: { namespaces: ["kube-system"] } } },
        );
      }

      const events = await expectOk(
        "GET",
        "/v1/events/components/{objectKind}/{objectUid}",
        `/v1/events/components/spectrocluster/${cluster.uid}?limit=10`,
        scope,
      );
      expect((events.json as { items: unknown[] }).items.length).toBeGreaterThan(0);

      const kubeconfig = await call("GET", `/v1/spectroclusters/${cluster.uid}/assets/kubeconfig`, {
        ...scope,
        headers: { accept: "application/octet-stream" },
      });
      expect(kubeconfig.status).toBe(200);
      expect(kubeconfig.headers.get("content-type")).toBe("application/octet-stream");
      expect(kubeconfig.text).toContain("kind: Config");
      expect(kubeconfig.text).toMatch(/token: sim-/);
    }
  });

  it("workloads honour the namespace filter and name unhealthy pods of an unhealthy cluster", async () => {
    const sick = sim.control
      .clusters()
      .find((c) => c.state === "Running" && c.health === "UnHealthy") as FleetCluster;
    expect(sick).toBeDefined();
    const all = await call("POST", `/v1/dashboard/spectroclusters/${sick.uid}/workloads`, {
      body: { filter: { namespaces: [] } },
    });
    const pods = (
      all.json as {
        spec: { pods: { metadata: { namespace: string }; status: { phase: string } }[] };
      }
    ).spec.pods;
    expect(pods.some((pod) => pod.status.phase === "CrashLoopBackOff")).toBe(true);
    const only = await call("POST", `/v1/dashboard/spectroclusters/${sick.uid}/workloads`, {
      body: { filter: { namespaces: ["monitoring"] } },
    });
    const onlyPods = (only.json as { spec: { pods: { metadata: { namespace: string } }[] } }).spec
      .pods;
    expect(onlyPods.length).toBeGreaterThan(0);
    expect(onlyPods.every((pod) => pod.metadata.namespace === "monitoring")).toBe(true);
  });

  it("errors are v1Error: unknown cluster 404, wrong project 404, unknown provider 404", async () => {
    const missing = await call("GET", "/v1/spectroclusters/000000000000000000000000");
    expect(missing.status).toBe(404);
    expectConforms("v1Error", missing.json);
    expect((missing.json as { code: string }).code).toBe("ResourceNotFound");
    const [a, b] = sim.control.projects() as [string, string];
    const inA = sim.control.clusters(a)[0] as FleetCluster;
    expect((await call("GET", `/v1/spectroclusters/${inA.uid}`, { projectUid: b })).status).toBe(
      404,
    );
    expect((await call("GET", `/v1/spectroclusters/${inA.uid}`, { projectUid: a })).status).toBe(
      200,
    );
    const badProvider = await call("POST", "/v1/spectroclusters/nutanix", { body: {} });
    expect(badProvider.status).toBe(404);
    expectConforms("v1Error", badProvider.json);
  });
});

function createBody(provider: Provider, name: string): unknown {
  const examples: Partial<Record<Provider, string>> = {
    aws: "spectroclusters-aws.create.request.json",
    eks: "spectroclusters-eks.create.request.json",
    vsphere: "spectroclusters-vsphere.create.request.json",
    virtual: "spectroclusters-virtual.create.request.json",
    "edge-native": "spectroclusters-edge-native.create.request.json",
  };
  const file = examples[provider];
  if (file) {
    const body = loadExample(file) as { metadata: { name: string } };
    body.metadata.name = name;
    return body;
  }
  const pool = (isControlPlane: boolean, cloudConfig: Record<string, unknown>) => ({
    poolConfig: {
      name: isControlPlane ? "cp-pool" : "worker-pool",
      size: isControlPlane ? 1 : 2,
      labels: [isControlPlane ? "control-plane" : "worker"],
      isControlPlane,
    },
    cloudConfig,
  });
  const base = (cloudConfig: Record<string, unknown>, pools: unknown[]) => ({
    metadata: { name, labels: { dev: "spectro__tag" }, annotations: {} },
    spec: {
      cloudAccountUid: "acc",
      profiles: [{ uid: "profile" }],
      cloudConfig,
      machinepoolconfig: pools,
    },
  });
  switch (provider) {
    case "azure":
      return base({ subscriptionId: "sub", location: "eastus", sshKey: "ssh-ed25519 AAAA" }, [
        pool(true, { instanceType: "Standard_D4s_v3" }),
        pool(false, { instanceType: "Standard_D4s_v3" }),
      ]);
    case "aks":
      return base({ subscriptionId: "sub", location: "eastus", sshKey: "ssh-ed25519 AAAA" }, [
        pool(false, { instanceType: "Standard_D2s_v3" }),
      ]);
    case "gcp":
      return base({ project: "p", region: "us-central1" }, [
        pool(true, { instanceType: "n2-standard-4" }),
        pool(false, { instanceType: "n2-standard-4" }),
      ]);
    case "gke":
      return base({ project: "p", region: "us-east1" }, [
        pool(false, { instanceType: "e2-standard-4" }),
      ]);
    case "maas":
      return base({ domain: "maas.local" }, [
        pool(true, { instanceType: { minCPU: 4, minMemInMB: 8192 }, resourcePool: "default" }),
        pool(false, { instanceType: { minCPU: 4, minMemInMB: 8192 }, resourcePool: "default" }),
      ]);
    default:
      return base({ region: "RegionOne" }, [
        pool(true, { flavorConfig: { name: "m1.large" } }),
        pool(false, { flavorConfig: { name: "m1.large" } }),
      ]);
  }
}

describe("launch inputs and create/delete", () => {
  it("cloud accounts, profiles, cluster groups, edge hosts, projects and alerts conform", async () => {
    const project = sim.control.projects()[0] as string;
    for (const kind of CLOUD_ACCOUNT_KINDS) {
      const accounts = await expectOk(
        "GET",
        `/v1/cloudaccounts/${kind}`,
        `/v1/cloudaccounts/${kind}`,
        { projectUid: project },
      );
      expect((accounts.json as { items: unknown[] }).items.length).toBeGreaterThan(0);
      expect(accounts.text).not.toMatch(/secret|password/i);
    }
    const profiles = await expectOk(
      "GET",
      "/v1/dashboard/clusterprofiles/metadata",
      "/v1/dashboard/clusterprofiles/metadata",
      { projectUid: project },
    );
    const cloudTypes = new Set(
      (profiles.json as { items: { spec: { cloudType: string } }[] }).items.map(
        (p) => p.spec.cloudType,
      ),
    );
    for (const provider of PROVIDERS) expect(cloudTypes.has(provider), provider).toBe(true);
    const groups = await expectOk(
      "GET",
      "/v1/clustergroups/hostCluster",
      "/v1/clustergroups/hostCluster",
      { projectUid: project },
    );
    expect((groups.json as { summaries: unknown[] }).summaries.length).toBeGreaterThan(0);
    const hosts = await expectOk(
      "POST",
      "/v1/dashboard/edgehosts/search",
      "/v1/dashboard/edgehosts/search?limit=50",
      { projectUid: project, body: { filter: {}, sort: [] } },
    );
    expect((hosts.json as { items: unknown[] }).items.length).toBeGreaterThan(0);
    const projects = await expectOk("POST", "/v1/dashboard/projects", "/v1/dashboard/projects", {
      body: {},
    });
    expect((projects.json as { items: unknown[] }).items).toHaveLength(3);
    const alerts = await expectOk("GET", "/v1/projects/alerts", "/v1/projects/alerts", {
      projectUid: project,
    });
    const names = (alerts.json as { components: { name: string }[] }).components.map((c) => c.name);
    expect(names).toContain("ClusterHealth");
  });

  it("creates a cluster on each of the 11 providers (201 {uid}), which provisions on the clock", async () => {
    const project = sim.control.projects()[2] as string;
    const created: string[] = [];
    for (const provider of PROVIDERS) {
      const name = `conf-${provider}`;
      const body = createBody(provider, name);
      expectConforms(requestDefinition("post", `/v1/spectroclusters/${provider}`), body);
      const answer = await expectOk(
        "POST",
        `/v1/spectroclusters/${provider}`,
        `/v1/spectroclusters/${provider}?ProjectUid=${project}`,
        { body },
      );
      expect(answer.status).toBe(201);
      created.push((answer.json as { uid: string }).uid);
      const again = await call("POST", `/v1/spectroclusters/${provider}?ProjectUid=${project}`, {
        body,
      });
      expect(again.status).toBe(409);
      expectConforms("v1Error", again.json);
      expect((again.json as { code: string }).code).toBe("DuplicateClusterName");
    }
    const states = async () =>
      Promise.all(
        created.map(
          async (uid) =>
            (
              (await call("GET", `/v1/spectroclusters/${uid}/status`)).json as {
                status: { state: string };
              }
            ).status.state,
        ),
      );
    expect(new Set(await states())).toEqual(new Set(["Pending"]));
    clock.advance(6_000);
    expect(new Set(await states())).toEqual(new Set(["Provisioning"]));
    clock.advance(20_000);
    expect(new Set(await states())).toEqual(new Set(["Running"]));

    const gone = await call("DELETE", `/v1/spectroclusters/${created[0]}`, { projectUid: project });
    expect(gone.status).toBe(204);
    expect(
      (
        (await call("GET", `/v1/spectroclusters/${created[0]}/status`)).json as {
          status: { state: string };
        }
      ).status.state,
    ).toBe("Deleting");
  });

  it("rejects a create body that is structurally wrong with 400 v1Error", async () => {
    const bad = await call("POST", "/v1/spectroclusters/aws", {
      body: { metadata: { name: "Bad_Name" }, spec: {} },
    });
    expect(bad.status).toBe(400);
    expectConforms("v1Error", bad.json);
    expect((bad.json as { message: string }).message).toContain("metadata.name");
    const noPools = await call("POST", "/v1/spectroclusters/aws", {
      body: { metadata: { name: "ok-name" }, spec: {} },
    });
    expect(noPools.status).toBe(400);
    expect((noPools.json as { message: string }).message).toContain("machinepoolconfig");
  });
});

describe("audit log", () => {
  it("GET /v1/audits conforms to v1Audits: the API's own writes with their caller, entries by other people, the system and a service, filtered by time, resource and action, paged by 50", async () => {
    const project = sim.control.projects()[0] as string;
    const target = sim.control
      .clusters(project)
      .find((c) => c.state === "Running" && c.provider !== "virtual") as FleetCluster;
    const started = clock.now();
    const before = sim.control.auditCount();
    // a write through the API with a person's key: the entry names that person
    const editorKey = sim.control.issueUserKey("editor@example.com");
    const gone = await call("DELETE", `/v1/spectroclusters/${target.uid}`, {
      projectUid: project,
      headers: { apiKey: editorKey },
      noApiKey: true,
    });
    expect(gone.status).toBe(204);
    expect(sim.control.auditCount()).toBe(before + 1);
    clock.advance(1_000);
    sim.control.addAudit({
      clusterUid: target.uid,
      actionType: "update",
      actionMsg: "Cluster profile 'edge-core' updated",
      email: "viewer@example.com",
    });
    sim.control.addAudit({
      clusterUid: target.uid,
      actionType: "deploy",
      actionMsg: "pack deployed",
    });
    sim.control.addAudit({
      clusterUid: target.uid,
      actionType: "action",
      actionMsg: "node auto-repair",
      actorType: "service",
      serviceName: "hubble",
    });
    for (let index = 0; index < 60; index++) {
      sim.control.addAudit({
        clusterUid: target.uid,
        actionType: "activity",
        actionMsg: `read ${index}`,
        at: started - 3_600_000 - index,
      });
    }
    const since = new Date(started).toISOString();
    const recent = await expectOk(
      "GET",
      "/v1/audits",
      `/v1/audits?resourceUid=${target.uid}&startTime=${encodeURIComponent(since)}&limit=50`,
    );
    const items = (
      recent.json as {
        items: Array<{
          spec: { actionType: string; actionMsg: string; actor: Record<string, unknown> };
        }>;
      }
    ).items;
    expect(items.map((item) => item.spec.actionType)).toEqual([
      "action",
      "deploy",
      "update",
      "delete",
    ]);
    expect(items.map((item) => item.spec.actor.actorType)).toEqual([
      "service",
      "system",
      "user",
      "user",
    ]);
    expect((items[2]!.spec.actor.user as { emailId: string }).emailId).toBe("viewer@example.com");
    expect((items[3]!.spec.actor.user as { emailId: string }).emailId).toBe("editor@example.com");

    const updates = await expectOk(
      "GET",
      "/v1/audits",
      `/v1/audits?resourceUid=${target.uid}&actionType=update`,
    );
    expect((updates.json as { items: unknown[] }).items).toHaveLength(1);

    // all 64, in pages of 50 following listmeta.continue
    const first = await expectOk("GET", "/v1/audits", `/v1/audits?resourceUid=${target.uid}`);
    const meta = (first.json as { listmeta: { continue: string; count: number } }).listmeta;
    expect((first.json as { items: unknown[] }).items).toHaveLength(50);
    expect(meta.count).toBe(64);
    const second = await expectOk(
      "GET",
      "/v1/audits",
      `/v1/audits?resourceUid=${target.uid}&continue=${encodeURIComponent(meta.continue)}`,
    );
    expect((second.json as { items: unknown[] }).items).toHaveLength(14);
    expect((second.json as { listmeta: { continue: string } }).listmeta.continue).toBe("");

    const bad = await call("GET", "/v1/audits?actionType=explode");
    expect(bad.status).toBe(400);
    expectConforms("v1Error", bad.json);
  });
});
