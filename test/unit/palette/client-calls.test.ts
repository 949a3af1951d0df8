import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/log.ts";
import { createPaletteClient } from "../../../src/palette/client.ts";
import { PaletteError } from "../../../src/palette/errors.ts";
import type { Transport, WireRequest, WireResponse } from "../../../src/palette/http.ts";
import { Secret } from "../../../src/secret.ts";

/**
 * The call logic (retries, create safety, delete idempotence, Retry-After) over a scripted
 * transport: no sockets, no real waiting. The real-server behaviour is in
 * test/integration/palette-client*.test.ts.
 */

type Step = WireResponse | Error;

function scripted(steps: Step[]) {
  const sent: WireRequest[] = [];
  const transport: Transport = {
    async send(request) {
      sent.push(request);
      const step = steps.shift();
      if (!step) throw new Error("script exhausted");
      if (step instanceof Error) throw step;
      return step;
    },
    async close() {},
  };
  return { transport, sent };
}

const json = (
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): WireResponse => ({
  status,
  headers,
  body: Buffer.from(JSON.stringify(body)),
});
const reset = () => Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });

function client(steps: Step[]) {
  const { transport, sent } = scripted(steps);
  const slept: number[] = [];
  const palette = createPaletteClient({
    baseUrl: "http://palette.invalid",
    credentials: { kind: "apiKey", apiKey: new Secret("key-123") },
    logger: silentLogger,
    transport,
    rateLimit: false,
    random: () => 0.5,
    backoff: { baseMs: 100, maxMs: 1000 },
    sleep: async (ms) => {
      slept.push(ms);
    },
  });
  return { palette, sent, slept };
}

describe("createPaletteClient call logic", () => {
  it("does not resend a create after a reset connection", async () => {
    const { palette, sent } = client([reset(), json(201, { uid: "dup" })]);
    const error = await palette
      .createCluster("aws", { metadata: { name: "x" } }, { projectUid: "p1" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PaletteError);
    expect(error).toMatchObject({ kind: "network", endpoint: "POST /v1/spectroclusters/aws" });
    expect(sent).toHaveLength(1);
    expect(sent[0]?.path).toBe("/v1/spectroclusters/aws?ProjectUid=p1");
    expect(sent[0]?.headers).toMatchObject({ ProjectUid: "p1", apiKey: "key-123" });
  });

  it("does not resend a create after a 500, but does after 503 and 429", async () => {
    const failed = client([json(500, { code: "Internal", message: "boom" })]);
    await expect(failed.palette.createCluster("aws", {}, {})).rejects.toMatchObject({
      status: 500,
    });
    expect(failed.sent).toHaveLength(1);

    const retried = client([
      json(503, {}),
      json(429, {}, { "retry-after": "2" }),
      json(201, { uid: "new-uid" }),
    ]);
    await expect(retried.palette.createCluster("eks", {}, {})).resolves.toBe("new-uid");
    expect(retried.sent).toHaveLength(3);
    expect(retried.slept).toEqual([50, 2000]);
    expect(retried.palette.stats()).toMatchObject({ retries: 2, rateLimited: 1 });
  });

  it("treats a 404 on a retried delete as done", async () => {
    const { palette, sent } = client([reset(), json(404, { code: "ResourceNotFound" })]);
    await expect(palette.deleteCluster("c1", {})).resolves.toBeUndefined();
    expect(sent.map((r) => r.method)).toEqual(["DELETE", "DELETE"]);
  });

  it("gives up after the retry bound with the last error", async () => {
    const { palette, sent, slept } = client([
      json(500, { code: "E", message: "m", ref: "r1" }),
      json(502, {}),
      json(500, {}),
      json(500, { code: "E", message: "still broken", ref: "r4" }),
    ]);
    await expect(palette.getCluster("c1", {})).rejects.toMatchObject({
      kind: "server",
      ref: "r4",
      message: "still broken",
    });
    expect(sent).toHaveLength(4);
    expect(slept).toEqual([50, 100, 200]);
    expect(palette.stats().failures).toEqual({ server: 1 });
  });

  it("fails at once on a Retry-After beyond a minute", async () => {
    const { palette, sent } = client([json(429, {}, { "retry-after": "3600" })]);
    await expect(palette.listProjects()).rejects.toMatchObject({ kind: "rate_limited" });
    expect(sent).toHaveLength(1);
  });

  it("scopes get-cluster by header and query, and pages with limit and continue", async () => {
    const { palette, sent } = client([
      json(200, { metadata: { uid: "c1" } }),
      json(200, { items: [], listmeta: { continue: "next-1" } }),
      json(200, { items: [], listmeta: { continue: "" } }),
    ]);
    await palette.getCluster("c1", { projectUid: "p1" });
    expect(sent[0]?.path).toBe("/v1/spectroclusters/c1?ProjectUid=p1");
    expect(sent[0]?.headers.ProjectUid).toBe("p1");
    await palette.listCloudAccounts("aws", { projectUid: "p1" });
    expect(sent.slice(1).map((r) => r.path)).toEqual([
      "/v1/cloudaccounts/aws?limit=50",
      "/v1/cloudaccounts/aws?limit=50&continue=next-1",
    ]);
  });

  it("decodes a base64 kubeconfig and asks for octet-stream", async () => {
    const yaml = "apiVersion: v1\nkind: Config\n";
    const { palette, sent } = client([
      { status: 200, headers: {}, body: Buffer.from(Buffer.from(yaml).toString("base64")) },
    ]);
    const kubeconfig = await palette.getKubeconfig("c1", { projectUid: "p1" });
    expect(kubeconfig.toString("utf8")).toBe(yaml);
    expect(sent[0]?.headers.Accept).toBe("application/octet-stream");
  });

  it("reports a wrong shape as a PaletteSchemaError naming the field", async () => {
    const { palette } = client([json(200, { items: [{ metadata: { uid: 42 } }] })]);
    await expect(palette.searchClusters({})).rejects.toMatchObject({
      name: "PaletteSchemaError",
      endpoint: "POST /v1/dashboard/spectroclusters/search",
      field: "items.0.metadata.uid",
    });
  });

  it("does not retry other 4xx answers", async () => {
    const { palette, sent } = client([json(403, { code: "Forbidden", message: "no" })]);
    await expect(palette.getClusterOverview("c1", {})).rejects.toMatchObject({ kind: "forbidden" });
    expect(sent).toHaveLength(1);
  });
});
