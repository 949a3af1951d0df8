import { KnownNames } from "./ground.ts";

/** one page of the poll's snapshot, in key order, after `after` (absent: from the start) */
export type NamePage = (
  after: readonly [string, string] | undefined,
  limit: number,
) => Promise<Array<{ key: readonly [string, string]; name: string }>>;

export interface KnownNamesSource {
  /** a cheap stamp of the snapshot that moves when the poll changes it */
  stamp: () => Promise<string>;
  page: NamePage;
  /** how often the stamp is asked at most; default 5 s */
  stampEveryMs?: number;
  now?: () => number;
}

const PAGE = 2_000;
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The poll's cluster names for the grounding check, built into a Set once per poll, not once per
 * question (issue 36: at 50,000 clusters a question must not pay for the fleet). A cheap stamp of
 * the snapshot (its row count and newest change), asked at most every few seconds, says whether
 * the poll moved; only then are the names read again, a page of 2,000 at a time with the event
 * loop free between pages (one query of 50,000 names held it for 100–350 ms). While a build runs,
 * questions are checked against the last poll's names; only the very first build is waited for.
 */
export function knownNamesByPoll(source: KnownNamesSource): () => Promise<KnownNames> {
  const now = source.now ?? Date.now;
  const every = source.stampEveryMs ?? 5_000;
  let current: { stamp: string; names: KnownNames } | undefined;
  let askedAt = Number.NEGATIVE_INFINITY;
  let building: Promise<KnownNames> | undefined;

  const build = async (stamp: string): Promise<KnownNames> => {
    const set = new Set<string>();
    let after: readonly [string, string] | undefined;
    for (;;) {
      const rows = await source.page(after, PAGE);
      KnownNames.addTo(
        set,
        rows.map((row) => row.name),
      );
      if (rows.length < PAGE) break;
      after = rows.at(-1)!.key;
      await yieldToLoop();
    }
    current = { stamp, names: KnownNames.fromBuilt(set) };
    return current.names;
  };

  return async () => {
    if (current && now() - askedAt < every) return current.names;
    askedAt = now();
    const stamp = await source.stamp();
    if (current?.stamp === stamp) return current.names;
    // questions at once while the poll moved share the one build; while it runs, a question is
    // checked against the last poll's names (only the very first build is waited for)
    building ??= build(stamp).finally(() => {
      building = undefined;
    });
    return current ? current.names : building;
  };
}
