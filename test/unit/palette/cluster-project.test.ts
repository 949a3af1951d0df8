import { describe, expect, it } from "vitest";
import { clusterProjectUid } from "../../../src/palette/cluster-project.ts";
import { clusterSchema, clusterSummarySchema } from "../../../src/palette/schemas.ts";

const PROJECT = "6512d0a1b2c3d4e5f6a7b8c9";

describe("clusterProjectUid: the cluster's project as Palette reports it", () => {
  it("reads metadata.annotations.projectUid of a cluster object (GET /v1/spectroclusters/{uid})", () => {
    // the annotations Palette sets on every project cluster, parsed as the client parses them
    const cluster = clusterSchema.parse({
      metadata: {
        uid: "5f2b0c3e9d1a4b0001a2b3c4",
        name: "web-prod",
        annotations: {
          description: "",
          ownerUid: "5f2b0c3e9d1a4b0001a2b3ff",
          projectUid: PROJECT,
          scope: "project",
          tenantUid: "5f2b0c3e9d1a4b0001a2b300",
        },
      },
      spec: { cloudType: "aws" },
    });
    expect(clusterProjectUid(cluster)).toBe(PROJECT);
  });

  it("prefers a search result's projectMeta, and falls back to its annotations", () => {
    const listed = clusterSummarySchema.parse({
      metadata: { uid: "a", annotations: { projectUid: "from-annotation" } },
      specSummary: { projectMeta: { uid: PROJECT, name: "Default" } },
    });
    expect(clusterProjectUid(listed)).toBe(PROJECT);
    const annotated = clusterSummarySchema.parse({
      metadata: { uid: "a", annotations: { projectUid: PROJECT, scope: "project" } },
      specSummary: { projectMeta: null },
    });
    expect(clusterProjectUid(annotated)).toBe(PROJECT);
  });

  it("is undefined for a tenant-scoped cluster, an empty or null annotation, or no metadata", () => {
    const tenant = clusterSchema.parse({
      metadata: { uid: "a", annotations: { scope: "tenant", projectUid: PROJECT } },
    });
    expect(clusterProjectUid(tenant)).toBeUndefined();
    expect(
      clusterProjectUid(clusterSchema.parse({ metadata: { annotations: { projectUid: "" } } })),
    ).toBeUndefined();
    expect(
      clusterProjectUid(clusterSchema.parse({ metadata: { annotations: { projectUid: null } } })),
    ).toBeUndefined();
    expect(clusterProjectUid(clusterSchema.parse({ metadata: null }))).toBeUndefined();
    expect(clusterProjectUid(undefined)).toBeUndefined();
  });
});
