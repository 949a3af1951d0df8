import { matchesFilter } from "../model/subscription.ts";
import { RadarStore } from "../store/radar.ts";
import { SnapshotStore } from "../store/snapshots.ts";
import { messageReply, usageReply } from "../verb-kit/reply.ts";
import type { VerbSpec } from "../verb-kit/types.ts";
import { risksSummaryText } from "../views/risk.ts";

/**
 * `/palette risks [project:<uid>] [tag:<t>]`: what the radar (src/radar/) holds now, grouped by
 * kind, worst first, with when each cluster was last read. Read from the store: no Palette call
 * (under IDENTITY=strict one, with the person's key, for the projects they may see), so it
 * answers at once whatever the fleet's size.
 */
export const risksVerb: VerbSpec = {
  name: "risks",
  usage: "risks [project:<uid>] [tag:<t>]",
  summary: "what the radar sees coming: certificates, pending repaves, backups, newer profiles",
  examples: ["/palette risks", "/palette risks tag:env:prod"],
  run: async (command, ctx) => {
    if (command.args.length > 0) {
      return usageReply(risksVerb, "`risks` takes only `project:<uid>` and `tag:<t>`.");
    }
    if (command.tags.length > 1) {
      return usageReply(risksVerb, "Give at most one `tag:`.");
    }
    const tag = command.tags[0];
    const project = command.project ?? (ctx.projects.length === 1 ? ctx.projects[0] : undefined);
    let rows = await new RadarStore(ctx.db).risks(command.project);
    if (command.project === undefined && ctx.projects.length > 0) {
      const watched = new Set(ctx.projects);
      rows = rows.filter((row) => watched.has(row.project));
    }
    if (ctx.identity?.mode === "strict") {
      // the dispatcher runs this verb with the person's own key under IDENTITY=strict (as the
      // other strict reads): Palette lists only the projects their roles reach (issue 31)
      const theirs = new Set(
        (await ctx.palette.listProjects()).flatMap((p) =>
          p.metadata?.uid ? [p.metadata.uid] : [],
        ),
      );
      rows = rows.filter((row) => theirs.has(row.project));
    }
    if (tag) {
      const filter = {
        id: 0,
        channel: "",
        kind: "risks" as const,
        tag,
        createdBy: "",
        createdAt: "",
      };
      const tagged = new Set<string>();
      await new SnapshotStore(ctx.db).forEach((cluster) => {
        if (matchesFilter(filter, cluster)) tagged.add(cluster.uid);
      });
      rows = rows.filter((row) => tagged.has(row.clusterUid));
    }
    const filter = { ...(command.project ? { project } : {}), ...(tag ? { tag } : {}) };
    return messageReply(
      { screen: "risks", data: { rows, filter } },
      risksSummaryText(rows, filter),
    );
  },
};
