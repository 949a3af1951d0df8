import { KnownNames } from "./ground.ts";

/**
 * The poll's cluster names for the grounding check, built into a Set once per poll, not once per
 * question (issue 36: at 50,000 clusters a question must not pay for the fleet). A cheap stamp of
 * the snapshot (its row count and newest change) says whether the poll moved since; only then
 * are the names read again.
 */
export function knownNamesByPoll(load: {
  stamp: () => Promise<string>;
  names: () => Promise<string[]>;
}): () => Promise<KnownNames> {
  let cached: { stamp: string; names: KnownNames } | undefined;
  let building: Promise<KnownNames> | undefined;
  return async () => {
    const stamp = await load.stamp();
    if (cached?.stamp === stamp) return cached.names;
    // questions at once while the poll moved wait for the one build
    building ??= load
      .names()
      .then((names) => {
        cached = { stamp, names: new KnownNames(names) };
        return cached.names;
      })
      .finally(() => {
        building = undefined;
      });
    return building;
  };
}
