import { type Freeze, type FreezeScope, freezeUntil, sameScope } from "../model/freeze.ts";
import { FreezeStore } from "../store/freezes.ts";
import { errorReply, messageReply, readScopes, usageReply } from "../verb-kit/reply.ts";
import { replayWith, resolveCluster } from "../verb-kit/resolve.ts";
import type { CommandContext, ParsedCommand, Reply, VerbSpec } from "../verb-kit/types.ts";
import { freezeLines, freezeScopeLabel } from "../views/change.ts";
import { code, escapeMrkdwn, mention, slackDate } from "../views/mrkdwn.ts";
import { chooseMachine, choosePool, chooseUpgrade } from "./choices.ts";
import { guardChange, guardPlan } from "./guard.ts";
import { planChange } from "./plan.ts";
import { readsAs } from "./reads-as.ts";
import type { ChangeAsk } from "./types.ts";

/**
 * The day-2 verbs (`scale`, `cordon`, `uncordon`, `repave approve`, `pause`, `resume`, `backup`,
 * `logs`, `upgrade`, `delete`: each a change confirmed in a modal) and `freeze|unfreeze|freezes`.
 * A change verb checks who may and the freezes before it reads Palette, and answers with the
 * confirmation to open; nothing is sent to Palette until the person confirms.
 */

const MAX_POOL_SIZE = 1000;

/** Not allowed, or frozen for the project or everything: said before Palette is read. */
async function refusedEarly(
  verb: ChangeAsk["verb"],
  cluster: string,
  project: string | undefined,
  ctx: CommandContext,
): Promise<Reply | undefined> {
  const early = await guardChange(ctx, ctx.requester.userId, verb, {
    name: cluster,
    projectUid: project,
  });
  return early.allowed ? undefined : errorReply(early.mrkdwn, early.text);
}

/**
 * The permission and freeze checks, then the Palette reads of `read` as the person who asked
 * (src/changes/reads-as.ts): under IDENTITY=linked|strict someone who cannot act in Palette is
 * told so privately before anything is read; under strict the reads use their own key.
 */
async function whenAllowed(
  verb: ChangeAsk["verb"],
  cluster: string,
  project: string | undefined,
  ctx: CommandContext,
  read: (ctx: CommandContext) => Promise<Reply>,
): Promise<Reply> {
  const refused = await refusedEarly(verb, cluster, project, ctx);
  if (refused) return refused;
  const reads = await readsAs({ requester: ctx.requester, verb, cluster, project }, ctx, (deps) =>
    read({ ...deps, requester: ctx.requester }),
  );
  return reads.kind === "read" ? reads.value : reads.reply;
}

function askChange(ask: ChangeAsk, ctx: CommandContext): Promise<Reply> {
  return whenAllowed(ask.verb, ask.cluster, ask.project, ctx, (readCtx) =>
    planAndOpen(ask, readCtx),
  );
}

async function planAndOpen(ask: ChangeAsk, ctx: CommandContext): Promise<Reply> {
  const planned = await planChange(ask, ctx);
  if (planned.kind === "reply") return planned.reply;
  const { plan } = planned;
  const guard = await guardPlan(ctx, ctx.requester.userId, plan);
  if (!guard.allowed) return errorReply(guard.mrkdwn, guard.text);
  return {
    kind: "modal",
    modal: "change",
    plan,
    needsApproval: ctx.approvals?.verbs.includes(plan.verb) ?? false,
  };
}

export const scaleVerb: VerbSpec = {
  name: "scale",
  usage: "scale <cluster> [<pool> <size>] [project:<uid>]",
  summary: "resize a machine pool (confirmed first; ALLOW_SCALE)",
  examples: ["/palette scale web-prod worker-pool 5"],
  run: async (command, ctx) => {
    if (command.args.length === 1) {
      const [cluster] = command.args as [string];
      return whenAllowed("scale", cluster, command.project, ctx, (readCtx) =>
        choosePool(cluster, command.project, readCtx),
      );
    }
    if (command.args.length !== 3) {
      return usageReply(scaleVerb, "Give the cluster, the pool and the new size.");
    }
    const [cluster, pool, sizeText] = command.args as [string, string, string];
    const size = /^\d{1,4}$/.test(sizeText) ? Number(sizeText) : Number.NaN;
    if (!Number.isInteger(size) || size < 0 || size > MAX_POOL_SIZE) {
      return usageReply(
        scaleVerb,
        `The size is a whole number of nodes from 0 to ${MAX_POOL_SIZE}, not ${code(sizeText.slice(0, 20))}.`,
      );
    }
    return askChange({ verb: "scale", cluster, pool, size, project: command.project }, ctx);
  },
};

export const deleteVerb: VerbSpec = {
  name: "delete",
  usage: "delete <cluster> [project:<uid>]",
  summary: "delete a cluster (typed name to confirm; ALLOW_DELETE)",
  examples: ["/palette delete scratch-eks-7"],
  run: async (command, ctx) => {
    if (command.args.length !== 1) {
      return usageReply(deleteVerb, "Which cluster? Give one name or UID.");
    }
    return askChange({ verb: "delete", cluster: command.args[0]!, project: command.project }, ctx);
  },
};

function machineVerb(verb: "cordon" | "uncordon"): VerbSpec {
  const spec: VerbSpec = {
    name: verb,
    usage: `${verb} <cluster> [<machine>] [project:<uid>]`,
    summary:
      verb === "cordon"
        ? "stop scheduling on a node (confirmed first; ALLOW_MAINTENANCE)"
        : "make a cordoned node schedulable again (ALLOW_MAINTENANCE)",
    examples: [`/palette ${verb} web-prod web-prod-worker-pool-3f9a1`],
    run: async (command, ctx) => {
      if (command.args.length === 1) {
        const [cluster] = command.args as [string];
        return whenAllowed(verb, cluster, command.project, ctx, (readCtx) =>
          chooseMachine(verb, cluster, command.project, readCtx),
        );
      }
      if (command.args.length !== 2) {
        return usageReply(
          spec,
          "Give the cluster and the machine (its name as `/palette nodes` shows it).",
        );
      }
      const [cluster, machine] = command.args as [string, string];
      return askChange({ verb, cluster, machine, project: command.project }, ctx);
    },
  };
  return spec;
}

export const repaveVerb: VerbSpec = {
  name: "repave",
  usage: "repave approve <cluster> [project:<uid>]",
  summary: "let Palette go ahead with a repave it holds for approval (ALLOW_MAINTENANCE)",
  examples: ["/palette repave approve web-prod"],
  run: async (command, ctx) => {
    if (command.args.length !== 2 || command.args[0]!.toLowerCase() !== "approve") {
      return usageReply(repaveVerb, "Say `repave approve <cluster>`.");
    }
    return askChange({ verb: "repave", cluster: command.args[1]!, project: command.project }, ctx);
  },
};

export const renewVerb: VerbSpec = {
  name: "renew",
  usage: "renew certificates <cluster> [project:<uid>]",
  summary: "renew a cluster's Kubernetes certificates now (ALLOW_MAINTENANCE)",
  examples: ["/palette renew certificates web-prod"],
  run: async (command, ctx) => {
    if (command.args.length !== 2 || command.args[0]!.toLowerCase() !== "certificates") {
      return usageReply(renewVerb, "Say `renew certificates <cluster>`.");
    }
    return askChange({ verb: "renew", cluster: command.args[1]!, project: command.project }, ctx);
  },
};

export const backupVerb: VerbSpec = {
  name: "backup",
  usage: "backup <cluster> [project:<uid>]",
  summary: "back a cluster up now, to its backup policy's location (ALLOW_BACKUP)",
  examples: ["/palette backup billing-prod"],
  run: async (command, ctx) => {
    if (command.args.length !== 1)
      return usageReply(backupVerb, "Which cluster? Give one name or UID.");
    return askChange({ verb: "backup", cluster: command.args[0]!, project: command.project }, ctx);
  },
};

export const upgradeVerb: VerbSpec = {
  name: "upgrade",
  usage: "upgrade <cluster> [<profile> <version>] [project:<uid>]",
  summary: "move an attached profile to a newer version (typed name to confirm; ALLOW_UPGRADE)",
  examples: ["/palette upgrade billing-prod", "/palette upgrade billing-prod aws-base-k8s 1.1.0"],
  run: async (command, ctx) => {
    const [cluster, profile, version] = command.args;
    if (cluster !== undefined && command.args.length === 1) {
      return whenAllowed("upgrade", cluster, command.project, ctx, (readCtx) =>
        chooseUpgrade(cluster, command.project, readCtx),
      );
    }
    if (
      cluster === undefined ||
      profile === undefined ||
      version === undefined ||
      command.args.length > 3
    ) {
      return usageReply(upgradeVerb, "Give the cluster, and the profile and version to move to.");
    }
    return askChange({ verb: "upgrade", cluster, profile, version, project: command.project }, ctx);
  },
};

export const logsVerb: VerbSpec = {
  name: "logs",
  usage: "logs <cluster> [project:<uid>]",
  summary: "have Palette collect a cluster's logs; the file comes to your DMs (ALLOW_LOGS)",
  examples: ["/palette logs billing-prod"],
  run: async (command, ctx) => {
    if (command.args.length !== 1)
      return usageReply(logsVerb, "Which cluster? Give one name or UID.");
    return askChange({ verb: "logs", cluster: command.args[0]!, project: command.project }, ctx);
  },
};

function lifecycleVerb(verb: "pause" | "resume"): VerbSpec {
  const spec: VerbSpec = {
    name: verb,
    usage: `${verb} <cluster> [project:<uid>]`,
    summary:
      verb === "pause"
        ? "pause a virtual cluster (typed name to confirm; ALLOW_MAINTENANCE)"
        : "resume a paused virtual cluster (ALLOW_MAINTENANCE)",
    examples: [`/palette ${verb} dev-vcluster-3`],
    run: async (command, ctx) => {
      if (command.args.length !== 1)
        return usageReply(spec, "Which cluster? Give one name or UID.");
      return askChange({ verb, cluster: command.args[0]!, project: command.project }, ctx);
    },
  };
  return spec;
}

/**
 * Who may set a freeze, and lift anyone's: ALLOW_FREEZE, or (unset) whoever may make some change
 * or launch (the policy's `freeze`). Lifting one's own freeze needs no list.
 */
const mayFreeze = (ctx: CommandContext): Promise<boolean> =>
  ctx.policy.allows(ctx.requester.userId, "freeze");

/** `<cluster>`, `project:<uid>` or `all`: what a freeze covers. */
async function freezeScope(
  command: ParsedCommand,
  words: readonly string[],
  ctx: CommandContext,
  verb: string,
): Promise<{ kind: "scope"; scope: FreezeScope } | { kind: "reply"; reply: Reply }> {
  if (command.project !== undefined && words.length === 0) {
    return { kind: "scope", scope: { kind: "project", uid: command.project } };
  }
  if (words.length !== 1) {
    return {
      kind: "reply",
      reply: errorReply(
        `Say what to ${verb}: a cluster, \`project:<uid>\` or \`all\`.`,
        `Say what to ${verb}.`,
      ),
    };
  }
  const word = words[0]!;
  if (word.toLowerCase() === "all") return { kind: "scope", scope: { kind: "all" } };
  const scopes = readScopes({ project: command.project }, ctx);
  const found = await resolveCluster(word, scopes, ctx, replayWith(verb, []));
  if (found.kind === "reply") return found;
  return {
    kind: "scope",
    scope: { kind: "cluster", uid: found.cluster.uid, name: found.cluster.name },
  };
}

const FREEZE_USAGE = "freeze <cluster>|project:<uid>|all until <time> [reason…]";

export const freezeVerb: VerbSpec = {
  name: "freeze",
  usage: FREEZE_USAGE,
  summary: "stop every change (launch included) to a cluster, a project or all, until a time",
  examples: [
    "/palette freeze all until 2026-12-24 holiday freeze",
    "/palette freeze web-prod until 4h release in progress",
  ],
  run: async (command, ctx) => {
    if (!(await mayFreeze(ctx))) {
      return errorReply(
        `:no_entry: You may not freeze changes. ${ctx.policy.grantHint("freeze")}`,
        "You may not freeze changes.",
      );
    }
    const untilAt = command.args.findIndex((word) => word.toLowerCase() === "until");
    if (untilAt === -1 || untilAt + 1 >= command.args.length) {
      return usageReply(freezeVerb, "Say until when, e.g. `until 4h` or `until 2026-12-01`.");
    }
    const end = freezeUntil(command.args[untilAt + 1]!, ctx.clock.now());
    if (!end.ok) return usageReply(freezeVerb, end.problem);
    const target = await freezeScope(command, command.args.slice(0, untilAt), ctx, "freeze");
    if (target.kind === "reply") return target.reply;
    const reason = command.args
      .slice(untilAt + 2)
      .join(" ")
      .slice(0, 300);
    const freeze = await new FreezeStore(ctx.db, ctx.clock).add({
      scope: target.scope,
      untilMs: end.untilMs,
      reason,
      frozenBy: ctx.requester.userId,
      // its lift is told here too, wherever it is typed
      announcedIn: ctx.requester.channelId,
    });
    await ctx.audit.record({
      userId: ctx.requester.userId,
      action: "freeze",
      target: scopeText(target.scope),
      outcome: "created",
      detail: JSON.stringify({
        freezeId: freeze.id,
        until: new Date(end.untilMs).toISOString(),
        reason,
      }),
    });
    return messageReply(
      {
        screen: "notice",
        data: {
          mrkdwn: `:snowflake: Changes to ${freezeScopeLabel(freeze)} are frozen until ${slackDate(end.untilMs, "dateTime")}${reason ? `: “${escapeMrkdwn(reason)}”` : ""}. Every change and launch is refused meanwhile; reads and notifications go on.`,
          hint: `\`/palette unfreeze ${escapeMrkdwn(command.args.slice(0, untilAt).join(" ") || (command.project ? `project:${command.project}` : "all"))} <why>\` lifts it.`,
        },
      },
      `Changes frozen until ${new Date(end.untilMs).toISOString()}`,
      "in_channel",
    );
  },
};

export const unfreezeVerb: VerbSpec = {
  name: "unfreeze",
  usage: "unfreeze <cluster>|project:<uid>|all <reason…>",
  summary: "lift a freeze, saying why; told where the freeze was announced",
  examples: ["/palette unfreeze all release shipped", "/palette unfreeze web-prod hotfix verified"],
  run: async (command, ctx) => {
    // `unfreeze project:<uid> <reason…>`: the project is the scope and every word the reason;
    // otherwise the first word is the scope (a cluster, in `project:` when given, or `all`)
    const projectFirst = /^\S+\s+project:/i.test(command.raw);
    const scopeWords = projectFirst ? [] : command.args.slice(0, 1);
    const reason = (projectFirst ? command.args : command.args.slice(1))
      .join(" ")
      .trim()
      .slice(0, 300);
    if (!reason) {
      return usageReply(
        unfreezeVerb,
        "Say why the freeze is lifted, e.g. `/palette unfreeze all release shipped`.",
      );
    }
    const target = await freezeScope(command, scopeWords, ctx, "unfreeze");
    if (target.kind === "reply") return target.reply;
    const store = new FreezeStore(ctx.db, ctx.clock);
    const userId = ctx.requester.userId;
    // the one who set a freeze may lift it; anyone else's, only ALLOW_FREEZE (see mayFreeze)
    const mayLiftAny = await mayFreeze(ctx);
    const lifted = await store.lift(target.scope, userId, mayLiftAny ? undefined : userId);
    const sameLeft = (await store.active()).filter((f) => sameScope(f.scope, target.scope));
    if (lifted.length === 0) {
      if (sameLeft.length > 0) {
        await ctx.audit.record({
          userId,
          action: "freeze",
          target: scopeText(target.scope),
          outcome: "denied",
          detail: JSON.stringify({
            freezeIds: sameLeft.map((f) => f.id),
            frozenBy: sameLeft.map((f) => f.frozenBy),
            reason,
            refused: "not their freeze",
          }),
        });
        return errorReply(
          `:no_entry: ${setBy(sameLeft)} set this freeze; only they, or someone allowed to lift any freeze, can lift it. ${ctx.policy.grantHint("freeze")}`,
          "You may not lift this freeze.",
        );
      }
      const others = (await store.active()).filter((f) => !sameScope(f.scope, target.scope));
      return errorReply(
        "No freeze of exactly that is in force.",
        "No such freeze.",
        others.length > 0 ? `In force: ${freezeLines(others)}` : undefined,
      );
    }
    const label = freezeScopeLabel(lifted[0]!);
    // another's freeze of the same scope that this person may not lift still holds: said
    const stillHeld =
      sameLeft.length > 0
        ? ` ${setBy(sameLeft)}'s freeze of it still holds: changes stay refused until it is lifted too.`
        : " Changes are allowed again (by the `ALLOW_*` lists).";
    const line = {
      mrkdwn: `:sunny: ${mention(userId)} lifted the freeze of ${label}: “${escapeMrkdwn(reason)}”.${stillHeld}`,
      text: escapeMrkdwn(`Freeze lifted: ${reason}`),
    };
    // told where each freeze was announced, besides here; a channel that refuses is said
    const elsewhere = [
      ...new Set(lifted.map((freeze) => freeze.announcedIn).filter((channel) => !!channel)),
    ].filter((channel): channel is string => channel !== ctx.requester.channelId);
    const told: string[] = [];
    const untold: string[] = [];
    for (const channel of elsewhere) {
      try {
        if (!ctx.announce) throw new Error("no Slack to post with");
        await ctx.announce(channel, line);
        told.push(channel);
      } catch (error) {
        untold.push(channel);
        ctx.logger.warn(
          { channel, err: error instanceof Error ? error.message : String(error) },
          "a freeze's lift was not told where the freeze was announced",
        );
      }
    }
    await ctx.audit.record({
      userId: ctx.requester.userId,
      action: "freeze",
      target: scopeText(target.scope),
      outcome: "removed",
      detail: JSON.stringify({
        freezeIds: lifted.map((f) => f.id),
        // whose freezes they were, and on what ground this person lifted them
        frozenBy: lifted.map((f) => f.frozenBy),
        liftedAs: lifted.every((f) => f.frozenBy === userId) ? "own freeze" : "ALLOW_FREEZE",
        reason,
        toldIn: [ctx.requester.channelId, ...told],
        ...(untold.length > 0 ? { notToldIn: untold } : {}),
      }),
    });
    return messageReply(
      {
        screen: "notice",
        data: {
          mrkdwn: line.mrkdwn,
          ...(untold.length > 0
            ? {
                hint: `Not told in ${untold.map((channel) => `<#${channel}>`).join(", ")}, where the freeze was announced: the bot cannot post there.`,
              }
            : {}),
        },
      },
      line.text,
      "in_channel",
    );
  },
};

export const freezesVerb: VerbSpec = {
  name: "freezes",
  usage: "freezes",
  summary: "the freezes in force",
  examples: ["/palette freezes"],
  run: async (_command, ctx) => {
    const freezes = await new FreezeStore(ctx.db, ctx.clock).active();
    return messageReply(
      { screen: "notice", data: { mrkdwn: freezeLines(freezes) } },
      `${freezes.length} freeze(s) in force`,
    );
  },
};

/** `<@U1>` or `<@U1> and <@U2>`: who set these freezes */
function setBy(freezes: readonly Freeze[]): string {
  const people = [...new Set(freezes.map((freeze) => mention(freeze.frozenBy)))];
  return people.join(" and ");
}

function scopeText(scope: FreezeScope): string {
  return scope.kind === "all"
    ? "all"
    : scope.kind === "project"
      ? `project:${scope.uid}`
      : scope.name;
}

export const changeVerbs: VerbSpec[] = [
  scaleVerb,
  machineVerb("cordon"),
  machineVerb("uncordon"),
  repaveVerb,
  renewVerb,
  lifecycleVerb("pause"),
  lifecycleVerb("resume"),
  backupVerb,
  logsVerb,
  upgradeVerb,
  deleteVerb,
  freezeVerb,
  unfreezeVerb,
  freezesVerb,
];
