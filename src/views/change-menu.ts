import type { Button, KnownBlock, Overflow } from "@slack/types";
import { quoteArg } from "../model/command-text.ts";
import { commandButton, runCommandActionId } from "./blocks.ts";
import { LIMITS } from "./limits.ts";
import { scopeArg } from "./scope.ts";

/**
 * The "Actions…" menu on a cluster card and a notification card: the day-2 changes that apply
 * to the cluster in its state, each option a `/palette` command the edge runs for whoever picks
 * it (so the same permission, freeze and confirmation apply). Pure.
 */

export interface MenuCluster {
  uid: string;
  projectUid?: string;
  /** Palette's state: Running, Provisioning, Deleting, … */
  state: string;
  /** cloud type: aws, virtual, edge-native, …; "" when the card does not know it */
  provider: string;
  /** a virtual cluster's own state (Paused, Running) when known */
  virtualState?: string;
}

/** cloud types whose pools the bot can resize (src/palette/machine-pool-body.ts) */
const SCALABLE = new Set(["aws", "eks", "azure", "aks", "gcp", "gke", "vsphere", "maas"]);

export function changeMenuOptions(cluster: MenuCluster): Array<{ label: string; command: string }> {
  if (cluster.state === "Deleting" || cluster.state === "Deleted") return [];
  const target = `${quoteArg(cluster.uid)}${scopeArg(cluster.projectUid)}`;
  const options: Array<{ label: string; command: string }> = [];
  const running = cluster.state === "Running";
  if (cluster.provider === "virtual") {
    if (cluster.virtualState === "Paused")
      options.push({ label: "Resume…", command: `resume ${target}` });
    else if (running) options.push({ label: "Pause…", command: `pause ${target}` });
  } else if (running) {
    // an unknown provider (a notification card knows none) is offered; the plan says if it can't
    if (cluster.provider === "" || SCALABLE.has(cluster.provider)) {
      options.push({ label: "Scale a pool…", command: `scale ${target}` });
    }
    options.push({ label: "Cordon a node…", command: `cordon ${target}` });
    // a pending repave is approved by name (`repave approve`): the card cannot know one is pending
    options.push({ label: "Upgrade…", command: `upgrade ${target}` });
  }
  if (running) options.push({ label: "Back up now…", command: `backup ${target}` });
  // a menu holds at most five options (Delete is the fifth): logs come along only when there is
  // room; the cluster card has a Logs button of its own
  if (running && options.length < 4)
    options.push({ label: "Fetch logs…", command: `logs ${target}` });
  options.push({ label: "Delete…", command: `delete ${target}` });
  return options;
}

export function changeMenu(cluster: MenuCluster, suffix: string): Overflow | Button | undefined {
  const options = changeMenuOptions(cluster).filter((option) => option.command.length <= 150);
  if (options.length === 0) return undefined;
  // Slack refuses an overflow menu of fewer than two options (the whole message, invalid_blocks):
  // a lone choice (a provisioning cluster's Delete…) is a button running the same command
  if (options.length === 1) {
    return commandButton(options[0]!.label, options[0]!.command, `actions_${suffix}`);
  }
  return {
    type: "overflow",
    action_id: runCommandActionId(`actions_${suffix}`),
    options: options.map((option) => ({
      text: { type: "plain_text", text: option.label },
      value: option.command,
    })),
  };
}

/** The actions rows with the menu added to the last row (or a row of its own when that is full). */
export function withChangeMenu(
  rows: KnownBlock[],
  menu: Overflow | Button | undefined,
): KnownBlock[] {
  if (!menu) return rows;
  const last = rows.at(-1);
  if (last?.type === "actions" && last.elements.length < LIMITS.actionsElements) {
    return [...rows.slice(0, -1), { ...last, elements: [...last.elements, menu] }];
  }
  return [...rows, { type: "actions", elements: [menu] }];
}
