import { describe, expect, it } from "vitest";
import {
  edgeHostDetail,
  edgeHostDeviceSchema,
  edgeHostSummary,
  edgeHostsSearchSchema,
  edgeTokens,
  edgeTokensSchema,
} from "../../../src/palette/edge-reads.ts";
import { edgeHostSearchBody } from "../../../src/palette/edge-search-body.ts";

/** What an edge host's answers mean to the bot: tolerant of what Palette leaves out or adds. */

describe("edge host answers", () => {
  it("reads a search item: site tag, lower-case health, the clusters, and fields it does not know", () => {
    const body = edgeHostsSearchSchema.parse({
      items: [
        {
          metadata: {
            uid: "h1",
            name: "store-0142-a",
            labels: { site: "store-0142", dev: "spectro__tag" },
            lastModifiedTimestamp: "2026-01-10T02:14:00Z",
            somethingNew: { nested: true },
          },
          spec: { device: { archType: "arm64" }, projectMeta: { uid: "p1", name: "retail" } },
          status: {
            state: "in-use",
            health: { state: "Unhealthy", message: "lost connection", agentVersion: "v4.6.1" },
            inUseClustersRef: [{ uid: "c1", name: "store-0142" }],
          },
        },
      ],
      listmeta: { continue: "", count: 1 },
    });
    expect(edgeHostSummary(body.items[0]!)).toEqual({
      uid: "h1",
      name: "store-0142-a",
      projectUid: "p1",
      projectName: "retail",
      state: "in-use",
      health: "unhealthy",
      healthMessage: "lost connection",
      agentVersion: "v4.6.1",
      tags: ["dev", "site:store-0142"],
      clusters: [{ uid: "c1", name: "store-0142" }],
      architecture: "arm64",
      lastModifiedAt: "2026-01-10T02:14:00Z",
    });
  });

  it("falls back to the deprecated inUseClusters, and takes nulls everywhere without a crash", () => {
    const body = edgeHostsSearchSchema.parse({
      items: [
        {
          metadata: { uid: "h2", name: null, labels: null },
          spec: null,
          status: { inUseClusters: [{ uid: "c9", name: null }], health: null },
        },
        { metadata: null, spec: null, status: null },
      ],
      listmeta: null,
    });
    expect(edgeHostSummary(body.items[0]!)).toEqual({
      uid: "h2",
      name: "h2",
      tags: [],
      clusters: [{ uid: "c9", name: "c9" }],
    });
    expect(edgeHostSummary(body.items[1]!).uid).toBe("");
  });

  it("reads one host in full: hardware, the remote shell, the project from aclmeta", () => {
    const body = edgeHostDeviceSchema.parse({
      metadata: { uid: "h1", name: "store-0142-a" },
      aclmeta: { projectUid: "p1" },
      spec: {
        device: {
          archType: "amd64",
          cpu: { cores: 8 },
          memory: { sizeInMB: 16384 },
          gpus: [{ vendor: "NVIDIA", model: "T4", gpuCount: 1 }],
          os: { family: "ubuntu", version: "22.04" },
        },
        host: {
          hostUid: "h1",
          hostAddress: "10.0.0.5",
          hostPairingKey: "secret",
          remoteSsh: "enabled",
        },
      },
      status: {
        state: "in-use",
        health: { state: "healthy", agentVersion: "v4.6.12" },
        serviceAuthToken: "also-secret",
        tunnelStatus: { ssh: { state: "Created", lastModifiedTime: "2026-01-09T08:00:00Z" } },
      },
    });
    const detail = edgeHostDetail(body);
    expect(detail).toMatchObject({
      projectUid: "p1",
      address: "10.0.0.5",
      cpuCores: 8,
      memoryMB: 16384,
      gpus: [{ vendor: "NVIDIA", model: "T4", count: 1 }],
      os: "ubuntu 22.04",
      remoteSsh: "enabled",
      shellState: "Created",
      shellSince: "2026-01-09T08:00:00Z",
      health: "healthy",
    });
    expect(JSON.stringify(detail)).not.toMatch(/secret/);
  });

  it("reads the tokens without the token itself", () => {
    const tokens = edgeTokens(
      edgeTokensSchema.parse({
        items: [
          {
            metadata: { uid: "t1", name: "stores" },
            spec: {
              expiry: "2026-01-20T00:00:00Z",
              token: "the-secret",
              defaultProject: { uid: "p1", name: "retail" },
            },
            status: { isActive: true },
          },
          { metadata: { uid: "t2" }, spec: null, status: null },
          { metadata: null },
        ],
      }),
    );
    expect(tokens).toEqual([
      {
        uid: "t1",
        name: "stores",
        expiry: "2026-01-20T00:00:00Z",
        defaultProjectUid: "p1",
        defaultProjectName: "retail",
        active: true,
      },
      { uid: "t2", name: "t2", active: false },
    ]);
    expect(JSON.stringify(tokens)).not.toContain("the-secret");
  });
});

describe("the edge search body", () => {
  it("puts each wanted property in a group of its own and drops empty ones", () => {
    const body = edgeHostSearchBody({
      tags: ["site:a", " ", "site:a"],
      health: ["unhealthy"],
      states: [],
    });
    expect(body.filter.filterGroups.map((group) => group.filters[0]?.property)).toEqual([
      "tags",
      "healthState",
    ]);
    expect(body.filter.filterGroups[0]?.filters[0]).toMatchObject({
      condition: { string: { match: { conjunction: "or", values: ["site:a"] } } },
    });
    expect(edgeHostSearchBody()).toEqual({
      filter: { conjunction: "and", filterGroups: [] },
      sort: [],
    });
  });
});
