import { describe, expect, it } from "vitest";
import type { ClusterSnap } from "../../../src/model/cluster.ts";
import { confirmAbsent, isMarkedDeleted } from "../../../src/notify/poll/absence.ts";
import type { Scope } from "../../../src/palette/api.ts";
import { PaletteError, PaletteSchemaError } from "../../../src/palette/errors.ts";
import type { Cluster } from "../../../src/palette/schemas.ts";
import { collectingLogger } from "../../support/palette-client-helpers.ts";

const snap = (uid: string, project = "p1"): ClusterSnap => ({
  uid,
  name: `n-${uid}`,
  project,
  state: "Running",
  health: "Healthy",
  tags: [],
});

const error = (kind: "not_found" | "forbidden" | "server", status: number) =>
  new PaletteError(kind, status, undefined, "palette says no", undefined, "GET /v1/x");

describe("isMarkedDeleted", () => {
  it("reads state Deleted (any case) and a deletion timestamp as deleted", () => {
    expect(isMarkedDeleted({ status: { state: "Deleted" } })).toBe(true);
    expect(isMarkedDeleted({ status: { state: "deleted" } })).toBe(true);
    expect(
      isMarkedDeleted({
        metadata: { deletionTimestamp: "2026-01-01T00:00:00Z" },
        status: { state: "Deleting" },
      }),
    ).toBe(true);
    expect(isMarkedDeleted({ status: { state: "Running" } })).toBe(false);
    expect(isMarkedDeleted({ metadata: { deletionTimestamp: null }, status: null })).toBe(false);
  });
});

describe("confirmAbsent", () => {
  it("says deleted only on 404 or a deleted mark, and unknown when the GET fails", async () => {
    const answers: Record<string, () => Cluster> = {
      live: () => ({ status: { state: "Running" } }),
      soft: () => ({ status: { state: "Deleted" } }),
      gone: () => {
        throw error("not_found", 404);
      },
      refused: () => {
        throw error("forbidden", 403);
      },
      down: () => {
        throw error("server", 503);
      },
      odd: () => {
        throw new PaletteSchemaError("GET /v1/x", "status", "not an object");
      },
    };
    const asked: Array<[string, Scope]> = [];
    const { logger, lines } = collectingLogger("info");
    const verdicts = await confirmAbsent(
      Object.keys(answers).map((uid) => snap(uid, uid === "live" ? "" : "p1")),
      {
        palette: {
          getCluster: async (uid, scope) => {
            asked.push([uid, scope]);
            return answers[uid]!();
          },
        },
        logger,
      },
    );
    expect(Object.fromEntries(verdicts)).toEqual({
      live: "present",
      soft: "deleted",
      gone: "deleted",
      refused: "unknown",
      down: "unknown",
      odd: "unknown",
    });
    // each in its own project; a cluster with none is asked in tenant scope
    expect(asked).toContainEqual(["live", {}]);
    expect(asked).toContainEqual(["gone", { projectUid: "p1" }]);
    // one line for the cycle, not one per cluster
    expect(lines.filter((line) => line.includes("could not be looked up"))).toHaveLength(1);
  });

  it("keeps at most `parallelism` look-ups in flight and asks nothing when nothing is missing", async () => {
    let inFlight = 0;
    let most = 0;
    const release: Array<() => void> = [];
    const palette = {
      getCluster: async (): Promise<Cluster> => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise<void>((resolve) => release.push(resolve));
        inFlight -= 1;
        return { status: { state: "Running" } };
      },
    };
    const { logger } = collectingLogger("info");
    const missing = Array.from({ length: 10 }, (_, i) => snap(`c${i}`));
    const done = confirmAbsent(missing, { palette, logger, parallelism: 3 });
    while (release.length > 0 || inFlight > 0) {
      await new Promise((resolve) => setImmediate(resolve));
      release.shift()?.();
    }
    const verdicts = await done;
    expect(verdicts.size).toBe(10);
    expect(most).toBe(3);
    expect((await confirmAbsent([], { palette, logger })).size).toBe(0);
  });
});
