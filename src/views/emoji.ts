/** Emoji for Palette cluster and machine states and health; unknown values get a question mark. */

const STATE_EMOJI: Record<string, string> = {
  running: ":large_green_circle:",
  provisioning: ":hourglass_flowing_sand:",
  importing: ":hourglass_flowing_sand:",
  pending: ":white_circle:",
  deleting: ":wastebasket:",
  deleted: ":black_circle:",
  failed: ":red_circle:",
  error: ":red_circle:",
  unknown: ":grey_question:",
};

const HEALTH_EMOJI: Record<string, string> = {
  healthy: ":white_check_mark:",
  unhealthy: ":warning:",
  unknown: ":grey_question:",
};

export const UNKNOWN_EMOJI = ":grey_question:";

export function stateEmoji(state: string | null | undefined): string {
  return STATE_EMOJI[(state ?? "").toLowerCase()] ?? UNKNOWN_EMOJI;
}

export function healthEmoji(health: string | null | undefined): string {
  return HEALTH_EMOJI[(health ?? "").toLowerCase()] ?? UNKNOWN_EMOJI;
}

/** Palette spells it `UnHealthy`; people read `Unhealthy`. */
export function isHealthy(health: string | null | undefined): boolean {
  return (health ?? "").toLowerCase() === "healthy";
}
