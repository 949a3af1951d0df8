import { z } from "zod";
import type { ReadTool } from "./reads.ts";

/**
 * Each read tool's own arguments (issue 36 item 9): a cluster is required where the read is about
 * one, `since` exists only on `why`, `namespace` only on `workloads`, tags only where the verb
 * takes them. The model is offered nothing a read would ignore, and the SDK refuses a call that
 * leaves out what a read needs before anything runs.
 */
const cluster = z.string().min(1).max(128).describe("a cluster's name or UID, exactly as read");
const project = z.string().max(64).optional().describe("a project UID, to narrow the read");
const tags = z
  .array(z.string().max(128))
  .max(5)
  .optional()
  .describe("cluster tags, key or key:value");

export const READ_INPUTS = {
  list_clusters: z.object({ project, tags }),
  cluster_overview: z.object({ cluster, project }),
  nodes: z.object({ cluster, project }),
  workloads: z.object({
    cluster,
    project,
    namespace: z.string().max(128).optional().describe("one namespace"),
  }),
  alerts: z.object({ project }),
  why: z.object({
    cluster,
    project,
    since: z.string().max(16).optional().describe("24h, 7d or a date YYYY-MM-DD"),
  }),
  risks: z.object({ project, tags }),
  freezes: z.object({}),
} satisfies Record<ReadTool, z.ZodType>;
