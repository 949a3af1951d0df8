import type { KnownBlock } from "@slack/types";
import { providerSpec } from "../palette/providers/index.ts";
import { isProvider } from "../palette/providers-list.ts";
import { buttonRows, context, fields, section, urlButton } from "./blocks.ts";
import { paletteClusterUrl } from "./cluster-card.ts";
import { clampText } from "./limits.ts";
import { code, escapeMrkdwn, mention } from "./mrkdwn.ts";

/** The launch card: one message per launch, edited in place as the cluster comes up. */

export interface LaunchCardInput {
  name: string;
  provider: string;
  projectUid: string;
  requester: string;
  /** whom the create ran as in Palette (IDENTITY=linked); absent: the bot's service account */
  paletteUser?: string;
  clusterUid?: string;
  /** Palette's cluster state; undefined before the first look */
  state?: string;
  consoleUrl: string;
  /** set when the watch gave up or the cluster vanished */
  note?: string;
}

export type LaunchPhase = "pending" | "provisioning" | "running" | "failed";

/** Palette states → what the card says; anything unknown counts as still provisioning. */
export function launchPhase(state: string | undefined): LaunchPhase {
  const s = (state ?? "Pending").toLowerCase();
  if (s === "running") return "running";
  if (s === "pending" || s === "") return "pending";
  if (/fail|error|delet/.test(s)) return "failed";
  return "provisioning";
}

export function isSettled(state: string | undefined): boolean {
  const phase = launchPhase(state);
  return phase === "running" || phase === "failed";
}

const ICON: Record<LaunchPhase, string> = {
  pending: ":hourglass_flowing_sand:",
  provisioning: ":gear:",
  running: ":white_check_mark:",
  failed: ":x:",
};

export function launchCard(input: LaunchCardInput): { text: string; blocks: KnownBlock[] } {
  const phase = launchPhase(input.state);
  const state = input.state ?? "Pending";
  const label = isProvider(input.provider) ? providerSpec(input.provider).label : input.provider;
  const settled = phase === "running" || phase === "failed";
  const headline =
    phase === "running"
      ? `${mention(input.requester)} cluster ${code(input.name)} is *Running*.`
      : phase === "failed"
        ? `${mention(input.requester)} cluster ${code(input.name)} did not come up: *${escapeMrkdwn(state)}*.`
        : `Launching cluster ${code(input.name)}: *${escapeMrkdwn(state)}*`;
  const blocks: KnownBlock[] = [
    section(`${ICON[phase]} ${headline}`),
    fields([
      `*Provider*\n${escapeMrkdwn(label)}`,
      `*Project*\n${input.projectUid ? code(input.projectUid) : "tenant"}`,
      `*Requested by*\n${mention(input.requester)}${input.paletteUser ? ` as ${escapeMrkdwn(input.paletteUser)}` : ""}`,
      `*State*\n${escapeMrkdwn(state)}`,
    ]),
  ];
  if (input.note) blocks.push(context(escapeMrkdwn(input.note)));
  if (input.clusterUid) {
    const url = paletteClusterUrl(
      input.consoleUrl,
      input.clusterUid,
      input.projectUid || undefined,
    );
    blocks.push(...buttonRows([urlButton("Open in Palette", url, "launch")]));
  }
  // the notification text is mrkdwn too: Palette's state and the names are escaped here as well
  const name = escapeMrkdwn(input.name);
  const text = settled
    ? `Cluster ${name} (${escapeMrkdwn(label)}) is ${escapeMrkdwn(state)}.`
    : `Launching cluster ${name} (${escapeMrkdwn(label)}): ${escapeMrkdwn(state)}`;
  return { text: clampText(text, 3000), blocks };
}

/**
 * What the requester hears when Palette's answer to a launch is not in the store: true in every
 * case, never "failed". `pickup` says when the bot looks the cluster up by name, e.g.
 * "within a minute" or "when it starts again".
 */
export function launchUnsettledNotice(input: {
  kind: "unrecorded" | "unconfirmed";
  name: string;
  pickup: string;
}): { title: string; text: string } {
  if (input.kind === "unrecorded") {
    return {
      title: "Launched",
      text: `Palette created cluster “${input.name}”, but the bot could not record it. It will pick the cluster up from Palette by its name ${input.pickup} and post its card.`,
    };
  }
  return {
    title: "Launch unconfirmed",
    text: `Palette's answer to the launch of “${input.name}” did not arrive, so the bot does not know yet whether the cluster was created. It will look for it in Palette by its name ${input.pickup} and post its card if it is there; until then the name stays reserved.`,
  };
}
