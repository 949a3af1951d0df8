import { code } from "../views/mrkdwn.ts";
import { messageReply } from "./reply.ts";
import type { VerbSpec } from "./types.ts";

/** `help [verb]`. Takes the verb table lazily because the table contains help itself. */
export function helpVerb(verbs: () => readonly VerbSpec[]): VerbSpec {
  return {
    name: "help",
    usage: "help [command]",
    summary: "lists the commands with examples",
    examples: ["/palette help", "/palette help clusters"],
    run: async (command) => {
      const wanted = command.args[0]?.toLowerCase();
      const all = verbs();
      const one = wanted ? all.find((verb) => verb.name === wanted) : undefined;
      const entries = one ? [one] : all;
      const preface =
        wanted && !one ? `No command ${code(wanted)}; here are all of them.` : undefined;
      return messageReply(
        { screen: "help", data: { entries, preface } },
        "Palette commands: /palette help",
      );
    },
  };
}
