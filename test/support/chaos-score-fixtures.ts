import type { Delivered, Field, MadeChange } from "../../bench/chaos/score.ts";

/** A change the chaos driver made in project p1 (the chaos scorers' unit tests). */
export const change = (at: number, cluster: string, field: Field, to: string): MadeChange => ({
  at,
  cluster,
  project: "p1",
  field,
  to,
});

/** A message Slack took, in channel C1 unless said. */
export const said = (at: number, text: string, channel = "C1"): Delivered => ({
  channel,
  at,
  text,
});
