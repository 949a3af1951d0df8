import type { KnownBlock } from "@slack/types";
import { context, header, section } from "./blocks.ts";
import { packLines } from "./limits.ts";
import { escapeMrkdwn } from "./mrkdwn.ts";

export interface HelpEntry {
  usage: string;
  summary: string;
  examples: string[];
}

export function helpBlocks(entries: readonly HelpEntry[]): KnownBlock[] {
  const lines = entries.map((entry) => {
    const examples = entry.examples.map((example) => `\`${escapeMrkdwn(example)}\``).join("  ");
    return `*\`/palette ${escapeMrkdwn(entry.usage)}\`*\n${escapeMrkdwn(entry.summary)}${examples ? `\n${examples}` : ""}`;
  });
  return [
    header("Palette commands"),
    ...packLines(lines, undefined, 6).map(section),
    context(
      "Clusters are named by name or UID. Add `project:&lt;uid&gt;` to look in another project; `--share` posts `cluster`/`clusters` answers to the channel.",
    ),
  ];
}
