import { quoteArg } from "../model/command-text.ts";
import type { EdgeHostSummary } from "../palette/edge-reads.ts";
import { describeForUser, PaletteError } from "../palette/errors.ts";
import { EdgeHostStore } from "../store/edge-hosts.ts";
import { edgeReadsOf, findEdgeHost, sameNameReply } from "../verb-kit/edge-host-lookup.ts";
import { flagValue } from "../verb-kit/parse.ts";
import { messageReply, notice, readScopes, usageReply } from "../verb-kit/reply.ts";
import type { CommandContext, ParsedCommand, Reply, VerbSpec } from "../verb-kit/types.ts";
import { edgeHostCardText } from "../views/edge-host-card.ts";
import type { EdgeHostGroup } from "../views/edge-host-list.ts";
import { code, escapeMrkdwn } from "../views/mrkdwn.ts";
import { scopeArg, scopeText } from "../views/scope.ts";
import { pageOf } from "./nodes.ts";

/**
 * `/palette edge host <name|uid>` (issue 39, item 3): one edge host's card, from Palette's
 * GET /v1/edgehosts/{uid} and the bot's own record (dark since, last seen healthy), which only
 * the edge poll measures. Read as the person under IDENTITY=strict (registry STRICT_READS).
 */
export const edgeVerb: VerbSpec = {
  name: "edge",
  usage:
    "edge host <name|uid> [project:<uid>] | edge hosts [unhealthy|unpaired|unused] [tag:<key:value>] [project:<uid>]",
  summary: "edge hosts: one host's card (health, dark since, site, cluster), or a filtered list",
  examples: [
    "/palette edge host store-0142-a",
    "/palette edge hosts unhealthy tag:site:store-0142",
  ],
  run: async (command, ctx) => {
    const [what, ref, ...rest] = command.args;
    if (what === "hosts") return listEdgeHosts(command, ctx);
    if (what !== "host" || ref === undefined || rest.length > 0) {
      return usageReply(
        edgeVerb,
        what !== "host"
          ? "Ask `edge host <name|uid>` or `edge hosts`."
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

/** hosts per page: twenty rows per project stay well under Slack's blocks and characters */
const LIST_PAGE = 20;
/** a person pages by hand; this bounds the requests one `--page=` makes */
const MAX_PAGE = 50;

/** the list's filters, each asked of Palette's search (server-side), never filtered here */
const LIST_FILTERS: Record<string, { states?: string[]; health?: string[] }> = {
  unhealthy: { health: ["unhealthy"] },
  unpaired: { states: ["unpaired"] },
  // registered and paired, in no cluster
  unused: { states: ["ready"] },
};

/**
 * `edge hosts [unhealthy|unpaired|unused] [tag:<key:value>] [project:<uid>] [--page=<n>]`: each
 * watched project's first page of hosts from POST /v1/dashboard/edgehosts/search, filtered by
 * Palette; a project with more gets a More button (its next page). Page n follows Palette's
 * `continue` n-1 times: the token is opaque and may outgrow a button.
 */
async function listEdgeHosts(command: ParsedCommand, ctx: CommandContext): Promise<Reply> {
  const words = command.args.slice(1);
  const unknown = words.find((word) => !(word in LIST_FILTERS));
  if (unknown !== undefined || words.length > 1) {
    return usageReply(
      edgeVerb,
      unknown !== undefined
        ? `\`${unknown.slice(0, 40)}\` is not a filter of \`edge hosts\`: unhealthy, unpaired or unused.`
        : "One filter at a time: unhealthy, unpaired or unused.",
    );
  }
  const edge = edgeReadsOf(ctx.palette);
  if (!edge) {
    return messageReply(notice("This bot cannot read edge hosts."), "Edge hosts unavailable");
  }
  const filterWord = words[0];
  const page = Math.min(pageOf(flagValue(command, "page")), MAX_PAGE);
  const tagArgs = command.tags.map((tag) => ` tag:${quoteArg(tag)}`).join("");
  const groups: EdgeHostGroup[] = [];
  try {
    for (const scope of readScopes(command, ctx)) {
      let next: string | undefined;
      let items: EdgeHostSummary[] = [];
      for (let read = 1; read <= page; read += 1) {
        const result = await edge.searchEdgeHosts({
          ...(scope.projectUid ? { projectUid: scope.projectUid } : {}),
          ...(filterWord ? LIST_FILTERS[filterWord] : {}),
          ...(command.tags.length > 0 ? { tags: command.tags } : {}),
          limit: LIST_PAGE,
          ...(next ? { continue: next } : {}),
        });
        items = result.items;
        next = result.continue;
        if (!next && read < page) {
          items = [];
          break;
        }
      }
      groups.push({
        scope,
        page,
        hosts: items.map((host) => ({
          name: host.name,
          ...(host.state ? { state: host.state } : {}),
          ...(host.health ? { health: host.health } : {}),
          ...(host.clusters[0] ? { clusterName: host.clusters[0].name } : {}),
        })),
        ...(next
          ? {
              next: `edge hosts${filterWord ? ` ${filterWord}` : ""}${tagArgs}${scopeArg(scope.projectUid)} --page=${page + 1}`,
            }
          : {}),
      });
    }
  } catch (error) {
    if (error instanceof PaletteError && (error.status === 401 || error.status === 403)) {
      throw error;
    }
    const why = describeForUser(error);
    return messageReply(
      notice(`:warning: The edge hosts could not be listed: ${escapeMrkdwn(why)}`),
      `The edge hosts could not be listed: ${why}`,
    );
  }
  const count = groups.reduce((sum, group) => sum + group.hosts.length, 0);
  const filter = [filterWord, ...command.tags.map((tag) => `tag:${tag}`)].filter(Boolean).join(" ");
  return messageReply(
    { screen: "edgeHostList", data: { groups, filter } },
    `${count} edge hosts${filter ? ` (${filter})` : ""}`,
  );
}
