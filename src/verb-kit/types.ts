import type { AccessPolicy } from "../access/types.ts";
import type { Clock, Timers } from "../clock.ts";
import type { ApprovalConfig } from "../config.ts";
import type { Logger } from "../log.ts";
import type { ChangePlan } from "../model/change.ts";
import type { HoldChange } from "../model/notification.ts";
import type { PaletteApi } from "../palette/api.ts";
import type { AuditLog } from "../store/audit.ts";
import type { IdentityLink } from "../store/identities.ts";
import type { SqlDb } from "../store/sql.ts";
import type { ReplyView } from "../views/reply.ts";
import type { IdentityDeps } from "./identity-deps.ts";

/**
 * The contract between the edges (Slack, console) and the commands. A handler gets everything
 * it needs passed in and returns a Reply: plain data (a screen and its data), no Slack and no HTTP.
 */

export interface Requester {
  userId: string;
  /** the channel the command was typed in (console: "console") */
  channelId: string;
  teamId?: string;
}

/** Is the bot a member of a channel? (Slack edge: conversations.info `is_member`) */
export interface ChannelProbe {
  /** undefined when it cannot tell (DM, console, API error) */
  isMember(channelId: string): Promise<boolean | undefined>;
}

export interface CommandDeps {
  palette: PaletteApi;
  /** IDENTITY=linked: acting commands run as the person's linked Palette user (src/identity/) */
  identity?: IdentityDeps;
  db: SqlDb;
  audit: AuditLog;
  policy: AccessPolicy;
  clock: Clock;
  logger: Logger;
  /** PALETTE_PROJECTS: watched projects and the default scope; empty = tenant */
  projects: string[];
  /** PALETTE_CONSOLE_URL, ends with "/" */
  consoleUrl: string;
  /** for `/palette subscribe`: warns when the bot is not in the channel; absent = no check */
  channelProbe?: ChannelProbe;
  /** a channel's digest schedule was set or turned off: the running scheduler re-reads them */
  onDigestChange?: () => void | Promise<void>;
  /**
   * A snooze or mute began or ended (src/commands/holds.ts): the Slack edge edits the card in
   * place, or wakes the notification sender when an end summary was queued. Absent (the console):
   * the card shows it at its next change, the summary goes out with the next poll.
   */
  onHoldChange?: (change: HoldChange) => Promise<void>;
  /**
   * Posts a line in another channel than the one the command was typed in (a freeze's lift is
   * told where the freeze was announced). Absent (the console): not posted. Throws when Slack
   * refuses (not_in_channel …); the caller says so.
   */
  announce?: (channelId: string, line: { mrkdwn: string; text: string }) => Promise<void>;
  /**
   * The reader's time zone (Slack: users.info `tz`) for answers that show times (`why`); absent
   * (the console, tests): UTC
   */
  readerTimeZone?: (userId: string) => Promise<string>;
  /** AUDIT_EXPORT_MAX: Palette's entries in one `/palette audit` export at most; default 10,000 */
  auditExportMax?: number;
  /** room for audit exports on this replica (src/commands/audit-room.ts); absent: the process's */
  auditExportRoom?: AuditExportRoomPort;
  /**
   * Leaves the command slot this command holds (src/slack/run-command.ts) before it ends: an audit
   * export, once its own room is granted, so its ten minutes on Palette block no other verb.
   * Absent (the console, an unlimited command): nothing to leave.
   */
  leaveCommandSlot?: () => void;
  /** APPROVAL_REQUIRED and friends (src/changes/); absent: no change needs a second person */
  approvals?: ApprovalConfig;
  /** what keeps a change's sender's heartbeat (src/changes/claim.ts); absent: real timers */
  timers?: Timers;
}

/** how many audit exports run at once, and whether the temp volume holds one more */
export interface AuditExportRoomPort {
  /** a place for an export of at most `neededBytes`; `release()` once its files are deleted */
  claim(neededBytes: number): Promise<AuditRoomAnswer>;
}

export type AuditRoomAnswer =
  | { kind: "granted"; release: () => void }
  | { kind: "busy"; running: number }
  | { kind: "no-room"; neededBytes: number; freeBytes: number };

export interface CommandContext extends CommandDeps {
  requester: Requester;
  /**
   * IDENTITY=strict: the person whose own key `palette` holds for this command's reads (set by
   * the dispatcher), so a verb tells Palette's refusal in their name, not the bot's
   */
  actingAs?: IdentityLink;
  /**
   * set for the assistant's reads (issue 36): a name that is not found is told from the name
   * search alone, with no walk of every cluster for a case-folded match or a "did you mean" (an
   * invented name would otherwise read the whole fleet, page by page)
   */
  noFleetWalk?: true;
}

export type Visibility = "ephemeral" | "in_channel";

/** A message to show where the command was typed. */
export interface MessageReply {
  kind: "message";
  /** plain-text fallback for notifications and screen readers */
  text: string;
  /** what to show, as data; views/reply.ts turns it into Block Kit */
  view: ReplyView;
  visibility: Visibility;
  /**
   * set when the reply says the thing asked for is not there ("No cluster named …"): a typed
   * refusal, so the assistant never takes its words (or its "did you mean") for data
   */
  miss?: "unknown-cluster";
}

/**
 * A file written to a private temporary directory rather than held in memory (an audit export
 * can be hundreds of MB): its size is known, so Slack's upload can be asked for it up front, and
 * the bytes are read from disk as they go out. Whoever delivers it calls `dispose()` once, sent
 * or not, which deletes the file and its directory.
 */
export interface SpooledFile {
  kind: "spooled";
  path: string;
  byteLength: number;
  dispose(): Promise<void>;
}

/** A file (a kubeconfig, an audit export) for the requester's DMs only; `notice` is what the channel shows them. */
export interface FileReply {
  kind: "file";
  fileName: string;
  title: string;
  /** small files (a kubeconfig) in memory; an audit export spooled to disk */
  content: Buffer | SpooledFile;
  notice: MessageReply;
  /** what a failed delivery is audited as; default `kubeconfig` */
  auditAs?: "kubeconfig" | "audit-export";
}

/** Ask the edge to open a modal: the launch form, the login form, or a change's confirmation. */
export type ModalReply =
  | { kind: "modal"; modal: "launch" | "login" }
  | { kind: "modal"; modal: "change"; plan: ChangePlan; needsApproval: boolean };

export type Reply = MessageReply | FileReply | ModalReply;

/** A parsed `/palette` text (src/verb-kit/parse.ts produces it). */
export interface ParsedCommand {
  /** lower-cased first word; "help" when the text is empty */
  verb: string;
  /** words and quoted values after the verb, minus the key:value options and flags below */
  args: string[];
  /** `project:<uid>` */
  project?: string;
  /** every `tag:<t>` */
  tags: string[];
  /** `--share` and other `--flags`, without the dashes */
  flags: Set<string>;
  /** the original text, trimmed */
  raw: string;
}

/** One verb of `/palette`. The registry (src/registry/dispatch.ts) holds a table of these. */
export interface VerbSpec {
  name: string;
  /** e.g. "clusters [tag…] [project:<uid>]" */
  usage: string;
  summary: string;
  examples: string[];
  run(command: ParsedCommand, ctx: CommandContext): Promise<Reply>;
}
