import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";

/**
 * Just enough of a Kubernetes API server for `helm template --dry-run=server` on 127.0.0.1: the
 * discovery documents Helm reads to map the chart's kinds (v1, apps/v1, networking.k8s.io/v1,
 * policy/v1) and GET of the Secrets it is given, so the chart's `lookup` reads a Secret as a
 * cluster would hand it over (data base64-encoded). Everything else is a 404 Status, as the API
 * server answers an unknown path. Nothing is ever created: a dry run only reads.
 */

export interface FakeKubeApi {
  /** a kubeconfig file naming this server, for `helm --kubeconfig` */
  kubeconfig: string;
  /** sets (or replaces) a Secret's string data, as `kubectl apply` would */
  setSecret(namespace: string, name: string, data: Record<string, string>): void;
  /** the paths requested, in order */
  requests: string[];
  close(): Promise<void>;
}

const resource = (name: string, kind: string, namespaced = true) => ({
  name,
  singularName: kind.toLowerCase(),
  namespaced,
  kind,
  verbs: ["get", "list", "create", "update", "patch", "delete"],
});

const GROUPS: Record<string, Array<ReturnType<typeof resource>>> = {
  "apps/v1": [resource("deployments", "Deployment")],
  "networking.k8s.io/v1": [
    resource("networkpolicies", "NetworkPolicy"),
    resource("ingresses", "Ingress"),
  ],
  "policy/v1": [resource("poddisruptionbudgets", "PodDisruptionBudget")],
};

const CORE = [
  resource("secrets", "Secret"),
  resource("configmaps", "ConfigMap"),
  resource("services", "Service"),
  resource("pods", "Pod"),
  resource("persistentvolumeclaims", "PersistentVolumeClaim"),
  resource("serviceaccounts", "ServiceAccount"),
];

export async function startFakeKubeApi(dir: string): Promise<FakeKubeApi> {
  const secrets = new Map<string, Record<string, string>>();
  const requests: string[] = [];
  const documents: Record<string, unknown> = {
    "/version": { major: "1", minor: "34", gitVersion: "v1.34.0", platform: "linux/amd64" },
    "/api": {
      kind: "APIVersions",
      versions: ["v1"],
      serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress: "127.0.0.1" }],
    },
    "/apis": {
      kind: "APIGroupList",
      apiVersion: "v1",
      groups: Object.keys(GROUPS).map((groupVersion) => {
        const [name, version] = groupVersion.split("/");
        const preferred = { groupVersion, version };
        return { name, versions: [preferred], preferredVersion: preferred };
      }),
    },
    "/api/v1": { kind: "APIResourceList", groupVersion: "v1", resources: CORE },
    ...Object.fromEntries(
      Object.entries(GROUPS).map(([groupVersion, resources]) => [
        `/apis/${groupVersion}`,
        { kind: "APIResourceList", apiVersion: "v1", groupVersion, resources },
      ]),
    ),
  };
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0]!;
    requests.push(path);
    const secret = /^\/api\/v1\/namespaces\/([^/]+)\/secrets\/([^/]+)$/.exec(path);
    let body: unknown = documents[path];
    if (secret && request.method === "GET") {
      const data = secrets.get(`${secret[1]}/${secret[2]}`);
      body = data && {
        kind: "Secret",
        apiVersion: "v1",
        metadata: { name: secret[2], namespace: secret[1] },
        type: "Opaque",
        data: Object.fromEntries(
          Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString("base64")]),
        ),
      };
    }
    response.writeHead(body ? 200 : 404, { "content-type": "application/json" });
    response.end(
      JSON.stringify(
        body ?? {
          kind: "Status",
          apiVersion: "v1",
          status: "Failure",
          reason: "NotFound",
          code: 404,
        },
      ),
    );
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(
    kubeconfig,
    [
      "apiVersion: v1",
      "kind: Config",
      `clusters: [{name: fake, cluster: {server: "http://127.0.0.1:${port}"}}]`,
      "users: [{name: fake, user: {token: fake-token}}]",
      "contexts: [{name: fake, context: {cluster: fake, user: fake}}]",
      "current-context: fake",
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  return {
    kubeconfig,
    requests,
    setSecret: (namespace, name, data) => secrets.set(`${namespace}/${name}`, { ...data }),
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}
