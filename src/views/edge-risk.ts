import type { KnownBlock } from "@slack/types";
import type { EdgeRisk, EdgeRiskKind } from "../model/edge-risk.ts";
import { context, fitMessage, section } from "./blocks.ts";
import { clampText, LIMITS } from "./limits.ts";
import { code, escapeMrkdwn } from "./mrkdwn.ts";

/**
 * The radar's notice of one edge risk (issue 39, item 5), pure: what it is about (a registration
 * token, a host, a cluster), the risk in words, edited in place as it changes and when it ends.
 * Every name and summary comes from Palette, so each is escaped, in the fallback text too.
 */

export const EDGE_KIND_TITLES: Record<EdgeRiskKind, string> = {
  "edge-token": "Edge registration token",
  "edge-shell": "Edge remote shell",
  "edge-agent-skew": "Edge agent versions",
  "edge-unused": "Edge host unused",
};

const EMOJI: Record<EdgeRisk["severity"], string> = {
  critical: ":red_circle:",
  warning: ":large_orange_circle:",
  info: ":information_source:",
};

const minute = (ms: number): string =>
  `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

export function edgeRiskNoticeText(risk: EdgeRisk): string {
  return escapeMrkdwn(`${risk.subject.name}: ${risk.summary}`);
}

export function edgeRiskNoticeBlocks(risk: EdgeRisk): KnownBlock[] {
  const { subject } = risk;
  return fitMessage([
    section(
      clampText(
        `${EMOJI[risk.severity]} *${escapeMrkdwn(subject.name)}* · ${EDGE_KIND_TITLES[risk.kind]}\n${escapeMrkdwn(risk.summary)}`,
        LIMITS.sectionText,
      ),
    ),
    context(
      `${subject.kind} ${code(subject.uid)}${subject.projectUid ? ` · project ${code(subject.projectUid)}` : ""}${risk.at !== undefined ? ` · ${minute(risk.at)}` : ""}`,
    ),
  ]);
}

export function edgeRiskGoneText(name: string, kind: EdgeRiskKind): string {
  return escapeMrkdwn(`${name}: ${EDGE_KIND_TITLES[kind]}: no longer holds`);
}

export function edgeRiskGoneBlocks(
  notice: { subjectUid: string; subjectKind: string; name: string; kind: EdgeRiskKind },
  at: number,
): KnownBlock[] {
  return [
    section(
      `:white_check_mark: *${escapeMrkdwn(notice.name)}* · ${EDGE_KIND_TITLES[notice.kind]}: no longer holds`,
    ),
    context(`${notice.subjectKind} ${code(notice.subjectUid)} · gone as of ${minute(at)}`),
  ];
}
