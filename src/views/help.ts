import type { KnownBlock } from "@slack/types";
import { context, header, section } from "./blocks.ts";
import { packLines } from "./limits.ts";
import { escapeMrkdwn } from "./mrkdwn.ts";

export interface HelpEntry {
  usage: string;
  summary: string;
  examples: string[];
}

/** One group of `/palette help`'s overview: what people come to do, and a line per verb. */
export interface HelpGroup {
  title: string;
  about: string;
  lines: ReadonlyArray<{ verb: string; line: string }>;
}

const NAMING =
  "Clusters are named by name or UID. Add `project:&lt;uid&gt;` to look in another project; `--share` posts `cluster`/`clusters` answers to the channel.";

/** The overview: a header, one section per group, one line per verb, so it fits a screen. */
export function helpOverviewBlocks(groups: readonly HelpGroup[]): KnownBlock[] {
  return [
    header("Palette commands"),
    ...groups.map((group) => {
      const title = `*${escapeMrkdwn(group.title)}*${group.about ? ` ${escapeMrkdwn(group.about)}` : ""}`;
      const lines = group.lines.map(
        ({ verb, line }) => `\`/palette ${escapeMrkdwn(verb)}\` ${escapeMrkdwn(line)}`,
      );
      return section([title, ...lines].join("\n"));
    }),
    context(`\`/palette help &lt;command&gt;\` gives its usage and examples. ${NAMING}`),
  ];
}

/** Verbs in full: usage, what it does, and its examples (`help <verb>`). */
export function helpBlocks(entries: readonly HelpEntry[]): KnownBlock[] {
  const lines = entries.map((entry) => {
    const examples = entry.examples.map((example) => `\`${escapeMrkdwn(example)}\``).join("  ");
    return `*\`/palette ${escapeMrkdwn(entry.usage)}\`*\n${escapeMrkdwn(entry.summary)}${examples ? `\n${examples}` : ""}`;
  });
  return [
    header("Palette commands"),
    ...packLines(lines, undefined, 6).map(section),
    context(NAMING),
  ];
}
