/**
 * Palette keeps tags as cluster labels: `key: value` for `key:value`, and a marker value (or an empty
 * one) for a plain tag. One reading of that convention for the client, the pipeline and the simulator.
 */

/** Palette marks a plain tag (no value) with this label value. */
export const PLAIN_TAG_VALUE = "spectro__tag";

/** The tags of a cluster as a user types them (`dev`, `team:core`), sorted. */
export function tagsOf(labels: Record<string, string | null> | null | undefined): string[] {
  return Object.entries(labels ?? {})
    .map(([key, value]) =>
      value === null || value === "" || value === PLAIN_TAG_VALUE ? key : `${key}:${value}`,
    )
    .sort();
}
