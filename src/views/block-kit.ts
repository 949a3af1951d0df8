/** Slack's Block Kit types, re-exported so code below the edge can carry blocks built in views/. */
export type { KnownBlock } from "@slack/types";
