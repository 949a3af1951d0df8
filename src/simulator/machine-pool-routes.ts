import { z } from "zod";
import type { ApiHandler } from "./api-context.ts";
import { clusterLookups } from "./api-lookups.ts";
import { badRequest, notFound, ok, page } from "./api-replies.ts";
import { cloudConfig, machines } from "./details.ts";
import { ApiError } from "./http-util.ts";
import { paginate } from "./paging.ts";
import type { Router } from "./routes.ts";
import type { SimState } from "./state.ts";

/**
 * A cluster's machine pools and nodes, on Palette's `/v1/cloudconfigs/{kind}/{configUid}` paths:
 * the cloud config with its pools, a pool's machines, cordon/uncordon of one machine, and a
 * pool's new size. Together because they all reach the cluster through its cloud config, not
 * its uid, and share the pool entity's validation.
 */

const maintenanceSchema = z.object({ action: z.enum(["cordon", "uncordon"]) });

const poolUpdateSchema = z.object({
  cloudConfig: z.record(z.string(), z.unknown()),
  poolConfig: z.object({
    name: z.string().min(1),
    size: z.number().int().min(0).max(1000),
    labels: z.array(z.string()),
    minSize: z.number().int().min(0).optional(),
    maxSize: z.number().int().min(0).optional(),
  }),
});

/** v1<Cloud>MachinePoolConfigEntity: cloudConfig required, poolConfig with name, size, labels */
function validatePoolUpdate(raw: unknown): z.infer<typeof poolUpdateSchema> {
  const parsed = poolUpdateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badRequest(
      `body does not match the machine pool entity: ${issue?.path.join(".") || "body"} ${issue?.message ?? ""}`.trim(),
    );
  }
  const { minSize, maxSize, size } = parsed.data.poolConfig;
  if (minSize !== undefined && maxSize !== undefined && (size < minSize || size > maxSize)) {
    throw badRequest(`poolConfig.size ${size} is outside minSize ${minSize} … maxSize ${maxSize}`);
  }
  return parsed.data;
}

export function addMachinePoolRoutes(router: Router<ApiHandler>, state: SimState): void {
  const { configCluster } = clusterLookups(state);

  router.add("GET", "/v1/cloudconfigs/:kind/:configUid", (ctx) => {
    const cluster = configCluster(
      ctx.params.kind ?? "",
      ctx.params.configUid ?? "",
      ctx.projectUid,
    );
    return ok(cloudConfig(state.fleet, cluster, state.now()));
  });
  router.add("GET", "/v1/cloudconfigs/:kind/:configUid/machinePools/:pool/machines", (ctx) => {
    const cluster = configCluster(
      ctx.params.kind ?? "",
      ctx.params.configUid ?? "",
      ctx.projectUid,
    );
    const list = machines(
      cluster,
      state.condition(cluster),
      ctx.params.pool ?? "",
      state.now(),
      state.resizeMs,
    );
    if (!list) throw notFound(`Machine pool '${ctx.params.pool}'`);
    return ok(paginate(list, page(ctx.query)));
  });
  router.add(
    "PUT",
    "/v1/cloudconfigs/:kind/:configUid/machinePools/:pool/machines/:machineUid/maintenance",
    async (ctx) => {
      const cluster = configCluster(
        ctx.params.kind ?? "",
        ctx.params.configUid ?? "",
        ctx.projectUid,
      );
      const parsed = maintenanceSchema.safeParse(await ctx.body());
      if (!parsed.success)
        throw badRequest("body must be v1MachineMaintenance {action: cordon|uncordon}");
      const list = machines(cluster, state.condition(cluster), ctx.params.pool ?? "", state.now());
      if (!list) throw notFound(`Machine pool '${ctx.params.pool}'`);
      const machineUid = ctx.params.machineUid ?? "";
      if (!list.some((machine) => machine.metadata.uid === machineUid)) {
        throw notFound(`Machine '${machineUid}'`);
      }
      cluster.maintenance ??= new Map();
      cluster.maintenance.set(machineUid, { action: parsed.data.action, at: state.now() });
      return { status: 204 };
    },
  );
  router.add("PUT", "/v1/cloudconfigs/:kind/:configUid/machinePools/:pool", async (ctx) => {
    const cluster = configCluster(
      ctx.params.kind ?? "",
      ctx.params.configUid ?? "",
      ctx.projectUid,
    );
    const condition = state.condition(cluster);
    if (condition.state !== "Running") {
      throw new ApiError(
        409,
        "ClusterNotRunning",
        `cluster '${cluster.name}' is ${condition.state}; its machine pools can change when it is Running`,
      );
    }
    const body = validatePoolUpdate(await ctx.body());
    const poolName = ctx.params.pool ?? "";
    if (body.poolConfig.name !== poolName) {
      throw badRequest(`poolConfig.name '${body.poolConfig.name}' is not the pool '${poolName}'`);
    }
    if (!state.resizePool(cluster, poolName, body.poolConfig.size)) {
      throw notFound(`Machine pool '${poolName}'`);
    }
    return { status: 204 };
  });
}
