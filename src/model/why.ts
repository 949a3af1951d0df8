/**
 * A cluster's story for `/palette why` (src/why/), as data the view (src/views/why.ts) draws:
 * entries from Palette's audit, Palette's events and the bot's own record, and the likely cause.
 * Texts are raw; the view escapes every one.
 */

export type WhySource = "audit" | "event" | "bot";

export type Who =
  /** a Palette user (e-mail or name), a service, or "Palette" for the system */
  | { kind: "palette"; name: string }
  /** a Slack user, named by ID (drawn as a mention) */
  | { kind: "slack"; userId: string };

export interface TimelineEntry {
  at: number;
  source: WhySource;
  who?: Who;
  /** the audit's action type, the event's reason, or the bot's verb */
  what: string;
  message: string;
  /** events only: warning and error begin trouble */
  severity?: "normal" | "warning" | "error";
  /** a write by a person or an automation: what the likely cause looks for */
  write: boolean;
  /** bot changes: the Slack user who approved it */
  approver?: string;
  /** extra words: a change's outcome, a hold's refusal */
  detail?: string;
  /** another object's entry in this story: an edge host's story shows its cluster's (issue 39) */
  subject?: string;
}

export type LikelyCause =
  /** the cluster is neither Failed nor unhealthy: nothing to explain */
  | { kind: "no-trouble"; state?: string; health?: string }
  /** a write in the hour before the trouble began */
  | { kind: "write"; entry: TimelineEntry; troubleAt: number; trouble?: TimelineEntry }
  /** no write recorded before it: the warning event that began it */
  | { kind: "event"; entry: TimelineEntry }
  /** troubled, but no warning event says since when, and no write in the hour before now */
  | { kind: "unknown"; state?: string; health?: string };

/** Slack user IDs (U…, W…, B…) only are drawn as mentions; anything else is escaped text. */
export const SLACK_USER_ID = /^[UWB][A-Z0-9]{2,30}$/;
