/**
 * `subscribe` covers every change to a channel's subscriptions (subscribe, unsubscribe, retry);
 * `ack` is acknowledging a notification card
 */
export type Permission =
  | "launch"
  | "kubeconfig"
  | "subscribe"
  | "ack"
  /** day-2 changes (src/changes/): ALLOW_SCALE, ALLOW_MAINTENANCE, … ALLOW_DELETE */
  | "scale"
  | "maintenance"
  | "logs"
  | "backup"
  | "upgrade"
  | "delete"
  /** exporting the bot's audit (`/palette audit`): ALLOW_AUDIT */
  | "audit"
  /**
   * setting a freeze and lifting anyone's: ALLOW_FREEZE; unset, whoever may make some change
   * (any change list or ALLOW_LAUNCH). Lifting one's own freeze needs no list.
   */
  | "freeze"
  /** `/palette why`: Palette's audit of a cluster, actors' e-mails included; ALLOW_WHY */
  | "why";

/** Who may do what. Deny by default; `*` grants everyone. */
export interface AccessPolicy {
  allows(userId: string, permission: Permission): Promise<boolean>;
  /** for refusals: who grants it, e.g. "ask an admin to add you to ALLOW_KUBECONFIG" */
  grantHint(permission: Permission): string;
}

/** The console user may do everything. */
export const allowAll: AccessPolicy = {
  allows: async () => true,
  grantHint: () => "",
};
