import { actingDetail, actingFor, personalRefusal } from "../identity/acting.ts";
import type { AuditOutcome } from "../store/audit.ts";
import { errorSummary } from "../verb-kit/log-error.ts";
import { messageReply, readScopes, usageReply } from "../verb-kit/reply.ts";
import { replayWith, resolveCluster } from "../verb-kit/resolve.ts";
import type { CommandContext, FileReply, VerbSpec } from "../verb-kit/types.ts";
import { code, escapeMrkdwn } from "../views/mrkdwn.ts";

/** A file name any OS accepts, from a cluster name that may hold anything. */
export function kubeconfigFileName(clusterName: string): string {
  const safe = clusterName
    .replace(/[^A-Za-z0-9._-]/g, "_")
    .replace(/^\.+/, "_")
    .slice(0, 100);
  return `${safe || "cluster"}.kubeconfig`;
}

/** Every attempt leaves an audit record and a log line; neither ever holds the content. */
async function trail(
  ctx: CommandContext,
  target: string,
  outcome: AuditOutcome,
  detail: Record<string, unknown>,
): Promise<void> {
  await ctx.audit.record({
    userId: ctx.requester.userId,
    action: "kubeconfig",
    target,
    outcome,
    detail: JSON.stringify(detail),
  });
  ctx.logger.info(
    {
      userId: ctx.requester.userId,
      channelId: ctx.requester.channelId,
      target,
      outcome,
      ...detail,
    },
    "kubeconfig request",
  );
}

export const kubeconfigVerb: VerbSpec = {
  name: "kubeconfig",
  usage: "kubeconfig <cluster> [project:<uid>]",
  summary:
    "sends the cluster's kubeconfig to you as a file in a direct message, if you are allowed",
  examples: ["/palette kubeconfig web-prod"],
  run: async (command, ctx) => {
    if (command.args.length !== 1) {
      return usageReply(
        kubeconfigVerb,
        command.args.length === 0
          ? "Which cluster? Give its name or UID."
          : "One cluster at a time.",
      );
    }
    const ref = command.args[0]!;
    // the policy goes first: a refused user learns nothing about the cluster, not even if it exists
    if (!(await ctx.policy.allows(ctx.requester.userId, "kubeconfig"))) {
      await trail(ctx, ref, "denied", {});
      const hint = ctx.policy.grantHint("kubeconfig");
      return messageReply(
        {
          screen: "error",
          data: {
            mrkdwn: ":no_entry: You are not allowed to download kubeconfigs.",
            hint: hint ? escapeMrkdwn(hint) : undefined,
          },
        },
        "You are not allowed to download kubeconfigs.",
      );
    }
    // IDENTITY=linked: the download runs with the person's own key (reads stay the bot's);
    // an unlinked person is told how to link before anything is asked of Palette
    const acting = await actingFor(ctx.requester, ctx.identity);
    if (acting.kind === "refused") {
      await trail(ctx, ref, "denied", { reason: "not linked" });
      return acting.reply;
    }
    const as = actingDetail(acting);
    let stage = "resolve";
    let project: string | undefined;
    try {
      const found = await resolveCluster(
        ref,
        readScopes(command, ctx),
        ctx,
        replayWith("kubeconfig"),
      );
      if (found.kind === "reply") {
        await trail(ctx, ref, "failed", { reason: found.reason });
        return found.reply;
      }
      const { cluster, scope: clusterScope } = found;
      project = clusterScope.projectUid;
      stage = "download";
      const palette = acting.kind === "person" ? acting.palette : ctx.palette;
      const content = await palette.getKubeconfig(cluster.uid, clusterScope);
      if (content.length === 0) {
        await trail(ctx, cluster.name, "failed", { uid: cluster.uid, reason: "empty" });
        return messageReply(
          {
            screen: "error",
            data: {
              mrkdwn: `Palette has no kubeconfig for ${code(cluster.name)} yet (is it still provisioning?).`,
            },
          },
          `No kubeconfig for ${cluster.name} yet`,
        );
      }
      stage = "audit";
      await trail(ctx, cluster.name, "granted", {
        uid: cluster.uid,
        projectUid: clusterScope.projectUid ?? null,
        bytes: content.length,
        ...as,
      });
      const fileName = kubeconfigFileName(cluster.name);
      const reply: FileReply = {
        kind: "file",
        fileName,
        title: `Kubeconfig of ${cluster.name}`,
        content,
        notice: messageReply(
          {
            screen: "notice",
            data: {
              mrkdwn: `:lock: The kubeconfig of ${code(cluster.name)} was sent to your DMs as ${code(fileName)}${acting.kind === "person" ? `, downloaded as ${escapeMrkdwn(acting.link.paletteUserName)}` : ""}.`,
              hint: "Keep it private: it grants access to the cluster.",
            },
          },
          `The kubeconfig of ${cluster.name} was sent to your DMs.`,
        ),
      };
      return reply;
    } catch (error) {
      const refused =
        acting.kind === "person" && stage === "download" && ctx.identity
          ? await personalRefusal(error, acting.link, "download kubeconfigs", project, ctx.identity)
          : undefined;
      // an audit write that failed is not a kubeconfig failure to record (it would fail again)
      if (stage !== "audit") {
        await trail(ctx, ref, refused ? "denied" : "failed", {
          stage,
          error: errorSummary(error).name,
          ...as,
        });
      }
      if (refused) return refused;
      throw error;
    } finally {
      if (acting.kind === "person") await acting.palette.close();
    }
  },
};
