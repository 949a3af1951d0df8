import type { KnownBlock } from "@slack/types";
import { buttonRows, commandButton, context, header, section } from "./blocks.ts";
import { healthEmoji, stateEmoji } from "./emoji.ts";
import { packLines } from "./limits.ts";
import { bold, code, escapeMrkdwn } from "./mrkdwn.ts";
import { type ScopeLabel, scopeText } from "./scope.ts";

/** One cluster of several that answer to the same name. */
export interface ClusterChoice {
  uid: string;
  name: string;
  state?: string;
  health?: string;
  projectName?: string;
  /** the command its button runs (the original verb, narrowed to this cluster) */
  command: string;
}

export interface ClusterChoiceData {
  /** the name the user typed */
  ref: string;
  scope: ScopeLabel;
  choices: readonly ClusterChoice[];
}

/** Buttons shown at most; the lines list every match. */
export const MAX_CHOICE_BUTTONS = 20;

/** "3 clusters are named web": a line per match and a button per match to pick it. */
export function clusterChoiceBlocks(data: ClusterChoiceData): KnownBlock[] {
  const lines = data.choices.map((choice) => {
    const health = choice.health ?? "health unknown";
    const project = choice.projectName ? ` · _${escapeMrkdwn(choice.projectName)}_` : "";
    return `${stateEmoji(choice.state)} ${bold(choice.name)} ${code(choice.uid)} · ${healthEmoji(choice.health)} ${escapeMrkdwn(health)}${project}`;
  });
  const buttons = data.choices.slice(0, MAX_CHOICE_BUTTONS).map((choice, index) => {
    const label = `${choice.name || choice.uid}${choice.projectName ? ` (${choice.projectName})` : ""} ${choice.uid.slice(-6)}`;
    return commandButton(label, choice.command, `choice_${index}`);
  });
  return [
    header(`${data.choices.length} clusters are named ${data.ref}`),
    context(`In ${scopeText(data.scope)}. Pick one:`),
    ...packLines(lines, undefined, 4, "clusters").map(section),
    ...buttonRows(buttons, 4),
  ];
}
