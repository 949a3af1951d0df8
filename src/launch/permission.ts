import type { CommandDeps } from "../verb-kit/types.ts";

/** Who may launch: ALLOW_LAUNCH decides; a refusal is audited and says how to be granted. */
export type LaunchPermission =
  | { allowed: true }
  | { allowed: false; refusal: string; hint: string };

export const LAUNCH_REFUSAL = "You are not allowed to launch clusters.";

/**
 * The one check behind every way to launch (the slash command, the shortcut, the modal's submit,
 * the console's form): every refusal is recorded the same way and reads the same.
 * `target` is what the refusal is recorded against (`modal`, or the provider of a submitted form).
 */
export async function checkLaunchPermission(
  deps: Pick<CommandDeps, "policy" | "audit">,
  userId: string,
  target: string,
): Promise<LaunchPermission> {
  if (await deps.policy.allows(userId, "launch")) return { allowed: true };
  await deps.audit.record({ userId, action: "launch", target, outcome: "denied" });
  return { allowed: false, refusal: LAUNCH_REFUSAL, hint: deps.policy.grantHint("launch") };
}

/** The refusal as one line (plain text), for places without room for a hint of its own. */
export function refusalLine(permission: { refusal: string; hint: string }): string {
  return `${permission.refusal} ${permission.hint}`.trim();
}
