import type { ApiHandler } from "./api-context.ts";
import { ok, page } from "./api-replies.ts";
import { paginate } from "./paging.ts";
import { sees } from "./rbac.ts";
import { iso } from "./render.ts";
import type { Router } from "./routes.ts";
import type { SimState } from "./state.ts";

/**
 * Palette's project-level reads: the projects a caller has a role in, with their clusters'
 * health counts (`POST /v1/dashboard/projects`), and the alert kinds a project supports
 * (`GET /v1/projects/alerts`). They answer about projects, not one cluster, so they need no
 * cluster lookup.
 */

export function addProjectRoutes(router: Router<ApiHandler>, state: SimState): void {
  router.add("GET", "/v1/projects/alerts", () =>
    ok({
      components: [
        {
          name: "ClusterHealth",
          description: "Raised when a cluster's health leaves Healthy",
          supportedChannels: ["email", "app", "http"],
        },
        {
          name: "ClusterUpdates",
          description: "Raised when cluster updates are available or applied",
          supportedChannels: ["email", "app"],
        },
      ],
    }),
  );
  router.add("POST", "/v1/dashboard/projects", async (ctx) => {
    await ctx.body();
    const items = state.fleet.projects
      .filter((project) => sees(ctx.caller, project.uid))
      .map((project) => {
        let healthy = 0;
        let unhealthy = 0;
        let running = 0;
        let errored = 0;
        for (const cluster of state.fleet.clusters) {
          if (cluster.projectUid !== project.uid) continue;
          const condition = state.condition(cluster);
          if (condition.state === "Running") running += 1;
          if (condition.state === "Failed") errored += 1;
          if (condition.health === "Healthy") healthy += 1;
          else if (condition.health === "UnHealthy") unhealthy += 1;
        }
        return {
          metadata: {
            uid: project.uid,
            name: project.name,
            creationTimestamp: iso(project.createdAt),
            labels: {},
          },
          status: {
            clustersHealth: { healthy, unhealthy, running, errored },
            status: { isDisabled: false },
          },
        };
      });
    return ok(paginate(items, page(ctx.query)));
  });
}
