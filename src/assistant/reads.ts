import type { KnownBlock } from "@slack/types";
import { CHANGE_VERB_NAMES } from "../model/change.ts";
import { quoteArg } from "../model/command-text.ts";
import type { Reply } from "../verb-kit/types.ts";
import { replyBlocks } from "../views/reply.ts";

/**
 * The assistant's reads, as the typed commands they are. A tool call becomes the text a person
 * would type after `/palette`, so it runs through the same dispatcher (scope, identity, ALLOW_*,
 * PALETTE_PROJECTS, the interactive lane) and its source is a command anyone can re-run.
 * Pure: the model's arguments in, a command text (or a refusal) out.
 */

/** Names and UIDs the model may pass: no spaces, no `project:`, no `--flag` smuggled in. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** tags are `key` or `key:value` (Palette's own form), nothing else */
const TAG = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,62}(:[A-Za-z0-9._/-]{0,63})?$/;
const SINCE = /^(\d{1,3}[hd]|\d{4}-\d{2}-\d{2})$/;

export const READ_TOOLS = [
  "list_clusters",
  "cluster_overview",
  "nodes",
  "workloads",
  "alerts",
  "why",
  "risks",
  "freezes",
] as const;
export type ReadTool = (typeof READ_TOOLS)[number];

export interface ReadArgs {
  cluster?: string;
  project?: string;
  tags?: string[];
  namespace?: string;
  since?: string;
}

export type CommandOrRefusal = { command: string; cluster?: string } | { refused: string };

function bad(what: string, value: string): { refused: string } {
  return { refused: `${what} ${JSON.stringify(value.slice(0, 60))} is not a valid ${what}.` };
}

/** The `/palette` text a read tool stands for. */
export function readCommand(tool: ReadTool, args: ReadArgs): CommandOrRefusal {
  const parts: string[] = [];
  const cluster = args.cluster?.trim();
  if (cluster !== undefined && !NAME.test(cluster)) return bad("cluster", cluster);
  const project = args.project?.trim();
  if (project !== undefined && project !== "" && !NAME.test(project))
    return bad("project", project);
  for (const tag of args.tags ?? []) if (!TAG.test(tag)) return bad("tag", tag);
  const needsCluster = ["cluster_overview", "nodes", "workloads", "why"].includes(tool);
  if (needsCluster && !cluster) return { refused: `${tool} needs a cluster name or UID.` };
  switch (tool) {
    case "list_clusters":
      parts.push("clusters", ...(args.tags ?? []).slice(0, 5).map((tag) => `tag:${tag}`));
      break;
    case "cluster_overview":
      parts.push("cluster", cluster!);
      break;
    case "nodes":
      parts.push("nodes", cluster!);
      break;
    case "workloads": {
      parts.push("workloads", cluster!);
      const namespace = args.namespace?.trim();
      if (namespace) {
        if (!NAME.test(namespace)) return bad("namespace", namespace);
        parts.push(namespace);
      }
      break;
    }
    case "why": {
      parts.push("why", cluster!);
      const since = args.since?.trim();
      if (since) {
        if (!SINCE.test(since)) return bad("since", since);
        parts.push("since", since);
      }
      break;
    }
    case "alerts":
      parts.push("alerts");
      break;
    case "risks":
      parts.push("risks", ...(args.tags ?? []).slice(0, 1).map((tag) => `tag:${tag}`));
      break;
    case "freezes":
      parts.push("freezes");
      break;
  }
  if (project && tool !== "freezes") parts.push(`project:${project}`);
  return { command: parts.join(" "), ...(cluster ? { cluster } : {}) };
}

/** What `propose_change` may offer: the change verbs, never a read-out of a secret. */
export const PROPOSABLE = CHANGE_VERB_NAMES;
export type ProposableVerb = (typeof PROPOSABLE)[number];

export interface ProposalArgs {
  verb: ProposableVerb;
  cluster: string;
  /** the verb's own arguments: a pool and a size, a machine, a profile and a version */
  args?: string[];
  project?: string;
}

/**
 * The typed command a proposal's button runs. It opens the same confirmation as typing it (every
 * guard applies there); this only builds the text, so a proposal can send nothing by itself.
 */
export function proposalCommand(proposal: ProposalArgs): CommandOrRefusal {
  const cluster = proposal.cluster.trim();
  if (!NAME.test(cluster)) return bad("cluster", cluster);
  const args = (proposal.args ?? []).map((arg) => arg.trim()).filter((arg) => arg !== "");
  for (const arg of args) if (!NAME.test(arg)) return bad("argument", arg);
  if (args.length > 3) return { refused: "At most 3 arguments after the cluster." };
  const project = proposal.project?.trim();
  if (project && !NAME.test(project)) return bad("project", project);
  const head =
    proposal.verb === "repave"
      ? ["repave", "approve"]
      : proposal.verb === "renew"
        ? ["renew", "certificates"]
        : [proposal.verb];
  const parts = [...head, quoteArg(cluster), ...args];
  if (project) parts.push(`project:${project}`);
  return { command: parts.join(" "), cluster };
}

/** Slack's `&lt;` entities back to characters: the model reads text, not mrkdwn. */
function unescapeMrkdwn(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** The words of a block, buttons left out (they are commands, not facts). */
function blockText(block: unknown, out: string[]): void {
  if (block === null || typeof block !== "object") return;
  const record = block as Record<string, unknown>;
  if (record.type === "actions" || record.type === "button") return;
  if (typeof record.text === "string") out.push(unescapeMrkdwn(record.text));
  for (const value of Object.values(record)) {
    if (Array.isArray(value)) for (const item of value) blockText(item, out);
    else if (value && typeof value === "object") blockText(value, out);
  }
}

/** A command's reply as the plain text the model reads. */
export function replyText(reply: Reply): string {
  if (reply.kind === "modal") return "(this command opens a form; not for the assistant)";
  const message = reply.kind === "file" ? reply.notice : reply;
  const out: string[] = [];
  for (const block of replyBlocks(message.view) as KnownBlock[]) blockText(block, out);
  return out.join("\n").trim() || message.text;
}

/** Is this reply a refusal or an error, not data? (the verbs answer those with these screens) */
export function isRefusal(reply: Reply): boolean {
  return (
    reply.kind === "message" &&
    (reply.miss !== undefined || reply.view.screen === "error" || reply.view.screen === "usage")
  );
}

/**
 * The screens that are a read's data. A notice, a usage line, an error or a help page is the bot
 * talking, not Palette: it grounds nothing. The choice between clusters of the same name is data
 * (Palette's exact matches, not a guess). `freezes` answers its list as a notice, so for that
 * read (and only it) the notice is the data.
 */
const DATA_SCREENS = new Set([
  "clusterChoice",
  "clusterList",
  "clusterGroups",
  "clusterCard",
  "nodeTable",
  "workloads",
  "alerts",
  "alertGroups",
  "why",
  "risks",
  "holdList",
]);

/**
 * One read, as the assistant keeps it: the text the model reads, and apart from it, the strings
 * of its data that may ground an answer. A miss or an error is a typed refusal: no data, no source.
 */
export type ReadResult =
  | { kind: "data"; text: string; data: string[]; cut: boolean }
  | { kind: "empty"; text: string; cut: boolean }
  | { kind: "refused"; text: string };

/**
 * The fields of a screen's data that echo the request rather than report Palette's answer: the
 * filters asked for (a list's tags, a workloads read's namespaces, the risks
 * filter), the name asked for (a choice's `ref`), the range asked for, and the commands for the
 * next page. The model chose them, so they ground nothing: a list read of `tag:ghost-prod-9`
 * must not make `ghost-prod-9` a name a read returned. (The scope stays: it is the project the
 * bot resolved and read, by its UID and Palette's name for it, not the words asked for.)
 */
const ECHO_FIELDS = new Set([
  "filter",
  "ref",
  "rangeLabel",
  "env",
  "command",
  "nextCommand",
  "moreCommand",
]);

/** a list's `tags` are the tags asked for; a card's `tags` are the cluster's own */
function echoesRequest(record: Record<string, unknown>, key: string): boolean {
  if (ECHO_FIELDS.has(key)) return true;
  return key === "tags" && ("items" in record || "groups" in record);
}

/** Every string Palette returned in a screen's data, mrkdwn entities undone (names, UIDs, states, links). */
function dataStrings(value: unknown, out: string[], depth = 0): void {
  if (depth > 12) return;
  if (typeof value === "string") out.push(unescapeMrkdwn(value));
  else if (Array.isArray(value)) for (const item of value) dataStrings(item, out, depth + 1);
  else if (value && typeof value === "object") {
    const record = value as Record<string, unknown>;
    for (const [key, item] of Object.entries(record)) {
      if (!echoesRequest(record, key)) dataStrings(item, out, depth + 1);
    }
  }
}

/** does a screen's data offer a next page (a list of more than one page, shown its first)? */
function hasNextPage(value: unknown, depth = 0): boolean {
  if (depth > 6 || value === null || typeof value !== "object") return false;
  if (Array.isArray(value)) return value.some((item) => hasNextPage(item, depth + 1));
  const record = value as Record<string, unknown>;
  if (typeof record.nextCommand === "string" && record.nextCommand !== "") return true;
  return Object.values(record).some((item) => hasNextPage(item, depth + 1));
}

export function readResult(tool: ReadTool, reply: Reply, maxChars: number): ReadResult {
  const full = replyText(reply);
  const text = trimToBudget(full, maxChars);
  // the model was shown only part of it (the token budget): the answer must say so
  const cut = text !== full;
  if (isRefusal(reply) || reply.kind !== "message") return { kind: "refused", text };
  const screen = reply.view.screen;
  if (DATA_SCREENS.has(screen) || (tool === "freezes" && screen === "notice")) {
    const data: string[] = [];
    dataStrings(reply.view.data, data);
    // the first page of a longer list is not the whole: "none are unhealthy" may be wrong
    return { kind: "data", text, data, cut: cut || hasNextPage(reply.view.data) };
  }
  // a notice that answers the read ("no open alerts"): a source, but nothing in it grounds a name
  if (screen === "notice") return { kind: "empty", text, cut };
  return { kind: "refused", text };
}

/** At most `maxChars` of a tool's text, cut at a line, saying how much was left out. */
export function trimToBudget(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.lastIndexOf("\n", maxChars);
  const kept = text.slice(0, cut > maxChars / 2 ? cut : maxChars);
  const dropped = text
    .slice(kept.length)
    .split("\n")
    .filter((line) => line.trim()).length;
  return `${kept}\n[… ${dropped} more line(s) left out to keep within the token budget; narrow the read (a tag, a project)]`;
}
