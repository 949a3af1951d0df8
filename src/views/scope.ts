import { quoteArg } from "../model/command-text.ts";
import { code, escapeMrkdwn } from "./mrkdwn.ts";

/** Which Palette scope a reply looked at, said in every reply so nobody guesses. */
export interface ScopeLabel {
  projectUid?: string;
  projectName?: string;
}

export function scopeText(scope: ScopeLabel): string {
  if (!scope.projectUid) return "tenant scope";
  if (scope.projectName)
    return `project ${escapeMrkdwn(scope.projectName)} (${code(scope.projectUid)})`;
  return `project ${code(scope.projectUid)}`;
}

/** `project:<uid>` to append to a command a button replays, so it looks in the same place. */
export function scopeArg(projectUid: string | undefined): string {
  return projectUid ? ` project:${quoteArg(projectUid)}` : "";
}
