import { describeForUser, PaletteError } from "../palette/errors.ts";
import { EdgeHostStore } from "../store/edge-hosts.ts";
import { edgeReadsOf, findEdgeHost, sameNameReply } from "../verb-kit/edge-host-lookup.ts";
import { messageReply, notice, readScopes, usageReply } from "../verb-kit/reply.ts";
import type { VerbSpec } from "../verb-kit/types.ts";
import { edgeHostCardText } from "../views/edge-host-card.ts";
import { code, escapeMrkdwn } from "../views/mrkdwn.ts";
import { scopeText } from "../views/scope.ts";

/**
 * `/palette edge host <name|uid>` (issue 39, item 3): one edge host's card, from Palette's
 * GET /v1/edgehosts/{uid} and the bot's own record (dark since, last seen healthy), which only
 * the edge poll measures. Read as the person under IDENTITY=strict (registry STRICT_READS).
 */
export const edgeVerb: VerbSpec = {
  name: "edge",
  usage: "edge host <name|uid> [project:<uid>]",
  summary: "one edge host: state, health, dark since, site, cluster, hardware, remote shell",
  examples: ["/palette edge host store-0142-a"],
  run: async (command, ctx) => {
    const [what, ref, ...rest] = command.args;
    if (what !== "host" || ref === undefined || rest.length > 0) {
      return usageReply(
        edgeVerb,
        what !== "host"
          ? "Ask `edge host <name|uid>`."
          : ref === undefined
            ? "Which edge host? Give its name or UID."
            : "One edge host at a time.",
      );
    }
    const edge = edgeReadsOf(ctx.palette);
    if (!edge) {
      return messageReply(notice("This bot cannot read edge hosts."), "Edge hosts unavailable");
    }
    const scopes = readScopes(command, ctx);
    const where =
      scopes.length === 1 ? scopeText(scopes[0]!) : `the ${scopes.length} watched projects`;
    let found: Awaited<ReturnType<typeof findEdgeHost>>;
    try {
      found = await findEdgeHost(ref, scopes, edge);
    } catch (error) {
      // a refusal is the person's under IDENTITY=strict: the dispatcher says so in their words
      if (error instanceof PaletteError && (error.status === 401 || error.status === 403)) {
        throw error;
      }
      const why = describeForUser(error);
      return messageReply(
        notice(`:warning: Edge host ${code(ref)} could not be read: ${escapeMrkdwn(why)}`),
        `Edge host ${ref} could not be read: ${why}`,
      );
    }
    if (found.kind === "none") {
      return messageReply(
        notice(`:mag: No edge host named ${code(ref)} in ${where}.`),
        `No edge host named ${ref}`,
      );
    }
    if (found.kind === "many") return sameNameReply(ref, found.hosts);
    const projectUid = found.host.projectUid;
    const scope = projectUid ? { projectUid } : {};
    const [host, records] = await Promise.all([
      edge.getEdgeHost(found.host.uid, scope),
      new EdgeHostStore(ctx.db).get([found.host.uid]),
    ]);
    const record = records.get(found.host.uid);
    // the site as the poll read it with EDGE_SITE_TAG; a host the poll never read shows none
    const site = record?.site;
    const card = {
      uid: host.uid,
      name: host.name,
      ...(projectUid ? { projectUid } : {}),
      ...(host.state ? { state: host.state } : {}),
      ...(host.health ? { health: host.health } : {}),
      ...(host.healthMessage ? { healthMessage: host.healthMessage } : {}),
      ...(host.agentVersion ? { agentVersion: host.agentVersion } : {}),
      ...(site ? { site } : {}),
      ...(host.clusters[0] ? { cluster: host.clusters[0] } : {}),
      ...(host.architecture ? { architecture: host.architecture } : {}),
      ...(host.cpuCores !== undefined ? { cpuCores: host.cpuCores } : {}),
      ...(host.memoryMB !== undefined ? { memoryMB: host.memoryMB } : {}),
      gpus: host.gpus,
      ...(host.shellState ? { shellState: host.shellState } : {}),
      // a record of a host now healthy again keeps no "since"; only a host still dark shows one
      ...(record?.unhealthySince !== undefined && host.health === "unhealthy"
        ? { unhealthySince: record.unhealthySince }
        : {}),
      ...(record?.lastSeenHealthy !== undefined ? { lastSeenHealthy: record.lastSeenHealthy } : {}),
      consoleUrl: ctx.consoleUrl,
    };
    return messageReply({ screen: "edgeHostCard", data: card }, edgeHostCardText(card));
  },
};
