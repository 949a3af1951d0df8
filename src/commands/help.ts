import { messageReply } from "../verb-kit/reply.ts";
import type { VerbSpec } from "../verb-kit/types.ts";
import type { HelpGroup } from "../views/help.ts";
import { code } from "../views/mrkdwn.ts";

/**
 * `/palette help` is one screen: the verbs grouped by what people come to do, one short line each.
 * `help <verb>` gives that verb's usage and examples. Every verb belongs to one group (a test holds
 * the table to the verb registry); one that does not is still listed, under "More", never hidden.
 */
export const HELP_GROUPS: readonly HelpGroupSpec[] = [
  {
    title: "Ask",
    about: "about clusters",
    verbs: {
      clusters: "list clusters, by tag or project",
      cluster: "one cluster's card: state, health, buttons",
      nodes: "its machine pools and machines",
      workloads: "its pods and controllers, per namespace",
      alerts: "the alerts raised now",
      kubeconfig: "its kubeconfig, to your DMs",
      why: "what changed before its trouble, and who did it",
      risks: "what is about to break: certificates, repaves, backups",
      edge: "edge hosts: one host's card, or the list (unhealthy, unpaired, unused)",
    },
  },
  {
    title: "Hear",
    about: "what changes, in this channel",
    verbs: {
      subscribe: "get notifications here",
      unsubscribe: "stop them",
      subscriptions: "what this channel gets, and what did not arrive",
      digest: "a daily or weekly summary",
      mute: "stop hearing one cluster for a while",
      unmute: "hear it again now",
      mutes: "this channel's mutes and snoozes",
    },
  },
  {
    title: "Act",
    about: "on clusters: each is confirmed first, and needs its permission",
    verbs: {
      launch: "the form that launches a cluster",
      scale: "resize a worker pool",
      cordon: "stop scheduling on a node",
      uncordon: "schedule on it again",
      repave: "approve a repave Palette holds",
      renew: "renew a cluster's Kubernetes certificates",
      pause: "pause a virtual cluster",
      resume: "resume it",
      backup: "back a cluster up now",
      logs: "collect its logs, to your DMs",
      upgrade: "a newer version of an attached profile",
      delete: "delete a cluster",
      freeze: "refuse every change until a time",
      unfreeze: "lift a freeze",
      freezes: "the freezes in force",
    },
  },
  {
    title: "You",
    about: "and the bot",
    verbs: {
      login: "act in Palette as your own user",
      whoami: "whom your commands act as",
      logout: "unlink it",
      audit: "who asked, approved and did what: a CSV to your DMs",
      help: "this list, or one command's usage and examples",
    },
  },
];

export interface HelpGroupSpec {
  title: string;
  /** what the group is for, after its title */
  about: string;
  /** verb name → its one line, in the order shown */
  verbs: Readonly<Record<string, string>>;
}

/** `help [verb]`. Takes the verb table lazily because the table contains help itself. */
export function helpVerb(verbs: () => readonly VerbSpec[]): VerbSpec {
  return {
    name: "help",
    usage: "help [command]",
    summary: "lists the commands by what they are for; with a command, its usage and examples",
    examples: ["/palette help", "/palette help scale"],
    run: async (command) => {
      const wanted = command.args[0]?.toLowerCase();
      const all = verbs();
      const one = wanted ? all.find((verb) => verb.name === wanted) : undefined;
      if (one) {
        return messageReply(
          { screen: "help", data: { entries: [one] } },
          `/palette ${one.usage}: ${one.summary}`,
        );
      }
      const preface =
        wanted && !one ? `No command ${code(wanted)}; here are all of them.` : undefined;
      return messageReply(
        { screen: "helpOverview", data: { groups: helpGroups(all), preface } },
        "Palette commands: /palette help",
      );
    },
  };
}

/** The groups with their verbs as registered: a verb no group names goes under "More". */
export function helpGroups(verbs: readonly VerbSpec[]): HelpGroup[] {
  const registered = new Map(verbs.map((verb) => [verb.name, verb]));
  const grouped = new Set<string>();
  const groups: HelpGroup[] = HELP_GROUPS.map((group) => ({
    title: group.title,
    about: group.about,
    lines: Object.entries(group.verbs)
      .filter(([name]) => registered.has(name))
      .map(([name, line]) => {
        grouped.add(name);
        return { verb: name, line };
      }),
  }));
  const rest = verbs.filter((verb) => !grouped.has(verb.name));
  if (rest.length > 0) {
    groups.push({
      title: "More",
      about: "",
      lines: rest.map((verb) => ({ verb: verb.name, line: verb.summary })),
    });
  }
  return groups;
}
