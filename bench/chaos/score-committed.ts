import {
  type Delivered,
  type Field,
  fieldAnnouncements,
  lifetimes,
  type MadeChange,
  type MessageTally,
  percentile,
} from "./score.ts";

/**
 * Scoring a chaos or failover run against what the bot committed (issue 37, item 8). The bot's
 * poll writes each state and health move it saw to `notify_events` in the same transaction as the
 * outbox rows that announce it, so those rows are what the bot owes Slack: a committed move
 * missing from a subscribed channel is lost, one shown twice (or a message tied to no committed
 * move) is a duplicate. The driver's changes that no committed move carries are unobservable, and
 * each must be explained by the time no leader was committing (no committed poll read Palette
 * while the change's state lasted), or by being a return to what the bot already held; the rest
 * are changes a committed poll read and did not record: missed.
 */

/** One row of `notify_events` of kind state, health-lost, health-recovered or health. */
export interface CommittedMove {
  /** the committing poll's time (ms, wall clock) */
  at: number;
  cluster: string;
  project: string;
  field: Field;
  to: string;
}

/** A `notify_events` row as stored; `at` ISO, `detail` "A → B" for state and health moves. */
export interface NotifyEventRow {
  at: string;
  name: string;
  project_uid: string;
  kind: string;
  detail: string | null;
}

const FIELD_OF: Record<string, Field> = {
  state: "state",
  "health-lost": "health",
  "health-recovered": "health",
  health: "health",
};

/** The rows that are moves of a field, in the order they were committed; the rest are ignored. */
export function committedMoves(rows: readonly NotifyEventRow[]): CommittedMove[] {
  return rows.flatMap((row) => {
    const field = FIELD_OF[row.kind];
    const to = /→ (.+)$/.exec(row.detail ?? "")?.[1]?.trim();
    if (!field || !to) return [];
    return [{ at: Date.parse(row.at), cluster: row.name, project: row.project_uid, field, to }];
  });
}

export interface CommittedScore {
  changesMade: number;
  /** state and health moves the bot committed (notify_events) */
  committed: number;
  /** committed moves to a value the driver never set */
  committedUnmade: number;
  /** (channel, committed move) pairs the subscriptions owe */
  expected: number;
  announced: number;
  /** a committed move a subscribed channel never showed */
  lost: number;
  /** a committed move shown again, plus messages tied to no committed move (`untied`) */
  duplicated: number;
  /** announcements of a value the driver did set but the bot never committed for that channel */
  untied: number;
  /** "deleted"/"new" announcements, and values the driver never set */
  falseAnnouncements: number;
  outOfOrder: number;
  digests: number;
  otherLines: number;
  /** driver changes no committed move carries */
  unobservable: number;
  /** of those, returns to the value the bot held (per its committed moves): no news to it */
  unchangedForBot: number;
  /** of those, changes a committed poll read while their state lasted: the poller missed them */
  missed: number;
  /**
   * Measured uncommitted time: from the first change on, the stretches between one committed
   * poll's read and the next (no leader committing a read), summed and the longest.
   */
  uncommittedMs: { total: number; longest: number };
  delayMs: { p50: number; p99: number; max: number };
  lostExamples: string[];
  missedExamples: string[];
  /**
   * Each unobservable change with its state's life (ms, wall clock; `until` null: it lasted) and
   * why no move carries it: a return to what the bot held, no committed read while it lasted, or
   * missed by a committed read.
   */
  unobservableChanges: Array<{
    change: string;
    from: number;
    until: number | null;
    why: "unchanged" | "uncommitted" | "missed";
  }>;
}

const keyOf = (cluster: string, field: Field) => `${cluster} ${field}`;

/**
 * Driver changes ↔ committed moves, per cluster and field, in order: a move carries the latest
 * driver change to its value made before its poll's read ended (a move's `at` is when the read
 * began; `readEnd` says when it ended). Earlier unmatched changes were never committed.
 */
function matchMoves(
  changes: readonly MadeChange[],
  moves: readonly CommittedMove[],
  readEnd: (move: CommittedMove) => number,
): { carried: Map<CommittedMove, MadeChange>; uncommitted: MadeChange[] } {
  const byKey = new Map<string, MadeChange[]>();
  for (const change of [...changes].sort((a, b) => a.at - b.at)) {
    const key = `${change.project} ${keyOf(change.cluster, change.field)}`;
    byKey.set(key, [...(byKey.get(key) ?? []), change]);
  }
  const carried = new Map<CommittedMove, MadeChange>();
  const used = new Set<MadeChange>();
  const next = new Map<string, number>();
  for (const move of moves) {
    const key = `${move.project} ${keyOf(move.cluster, move.field)}`;
    const list = byKey.get(key) ?? [];
    const from = next.get(key) ?? 0;
    let found = -1;
    for (let i = from; i < list.length && list[i]!.at <= readEnd(move); i++) {
      if (list[i]!.to === move.to) found = i;
    }
    if (found < 0) continue;
    carried.set(move, list[found]!);
    used.add(list[found]!);
    next.set(key, found + 1);
  }
  return { carried, uncommitted: changes.filter((change) => !used.has(change)) };
}

/** The stretches from the first change on in which no committed poll's read ran. */
function uncommittedStretches(
  polls: ReadonlyArray<readonly [number, number]>,
  from: number,
  to: number,
): Array<[number, number]> {
  const stretches: Array<[number, number]> = [];
  let covered = from;
  for (const [readFrom, readTo] of [...polls].sort((a, b) => a[0] - b[0])) {
    if (readFrom > covered) stretches.push([covered, Math.min(readFrom, to)]);
    covered = Math.max(covered, readTo);
    if (covered >= to) break;
  }
  if (covered < to) stretches.push([covered, to]);
  return stretches.filter(([a, b]) => b > a);
}

export function scoreCommitted(input: {
  changes: readonly MadeChange[];
  /** the bots' committed state and health moves, oldest first (`committedMoves` of the rows) */
  committed: readonly CommittedMove[];
  delivered: readonly Delivered[];
  /** channel → the project it subscribed to */
  channels: ReadonlyMap<string, string>;
  /** the read windows [from, to] of the polls the bots committed ("poll cycle committed") */
  polls: ReadonlyArray<readonly [number, number]>;
  /** each field's value on every cluster before the first change (the run starts calm) */
  initial: Partial<Record<Field, string>>;
  /** when the score is taken (ms): the uncommitted time runs to here; default the last message */
  now?: number;
}): CommittedScore {
  const moves = [...input.committed].sort((a, b) => a.at - b.at);
  // a move's poll: the committed read that began when the move's cycle did
  const readEnds = new Map<number, number>();
  for (const [from, to] of input.polls) readEnds.set(from, Math.max(to, readEnds.get(from) ?? 0));
  const { carried, uncommitted } = matchMoves(
    input.changes,
    moves,
    (move) => readEnds.get(move.at) ?? Number.POSITIVE_INFINITY,
  );
  const driverValues = new Set(input.changes.map((c) => keyOf(c.cluster, c.field) + c.to));

  // what each channel is owed: the committed moves of its project, per cluster in order
  const owed = new Map<string, Array<{ move: CommittedMove; matched: boolean }>>();
  let expected = 0;
  for (const [channel, project] of input.channels) {
    for (const move of moves) {
      if (move.project !== project) continue;
      const key = `${channel} ${move.cluster}`;
      owed.set(key, [...(owed.get(key) ?? []), { move, matched: false }]);
      expected += 1;
    }
  }

  const lastMatched = new Map<string, number>();
  const delays: number[] = [];
  let repeated = 0;
  let untied = 0;
  let outOfOrder = 0;
  const tally: MessageTally = { announced: 0, falseAnnouncements: 0, digests: 0, otherLines: 0 };
  for (const announcement of fieldAnnouncements(input.delivered, tally)) {
    const { message } = announcement;
    const field = announcement.field;
    const key = `${message.channel} ${announcement.cluster}`;
    const list = owed.get(key) ?? [];
    const same = (entry: { move: CommittedMove }) =>
      entry.move.field === field && entry.move.to === announcement.to;
    const last = lastMatched.get(key) ?? -1;
    const next = list.findIndex((entry, index) => index > last && !entry.matched && same(entry));
    const earlier = list.findIndex((entry, index) => index < last && !entry.matched && same(entry));
    const hit = next >= 0 ? next : earlier;
    if (hit >= 0) {
      list[hit]!.matched = true;
      if (next >= 0) lastMatched.set(key, next);
      else outOfOrder += 1;
      const change = carried.get(list[hit]!.move);
      delays.push(message.at - (change?.at ?? list[hit]!.move.at));
    } else if (list.some(same)) {
      repeated += 1;
    } else if (driverValues.has(keyOf(announcement.cluster, field) + announcement.to)) {
      // a value the driver set, announced though the bot committed no such move here
      untied += 1;
    } else {
      tally.falseAnnouncements += 1;
    }
  }

  // the driver's changes no committed move carries: explained, or missed
  const until = lifetimes(input.changes);
  const heldAt = (change: MadeChange) => {
    // the bot's value for the field when the change was made: its last committed move before
    let value = input.initial[change.field];
    for (const move of moves) {
      if (move.at > change.at) break;
      if (move.project === change.project && move.cluster === change.cluster) {
        if (move.field === change.field) value = move.to;
      }
    }
    return value;
  };
  const why = new Map<MadeChange, "unchanged" | "uncommitted" | "missed">();
  for (const change of uncommitted) {
    const end = until.get(change) ?? Number.POSITIVE_INFINITY;
    const readInside = input.polls.some(([from, to]) => from >= change.at && to <= end);
    if (heldAt(change) === change.to) why.set(change, "unchanged");
    else why.set(change, readInside ? "missed" : "uncommitted");
  }
  const missed = uncommitted.filter((change) => why.get(change) === "missed");
  const unchangedForBot = uncommitted.filter((change) => why.get(change) === "unchanged").length;

  const firstChange = Math.min(...input.changes.map((c) => c.at));
  const now =
    input.now ??
    Math.max(firstChange, ...input.delivered.map((m) => m.at), ...moves.map((m) => m.at));
  const stretches = Number.isFinite(firstChange)
    ? uncommittedStretches(input.polls, firstChange, now)
    : [];
  const lengths = stretches.map(([a, b]) => b - a);

  const lostEntries = [...owed.entries()].flatMap(([key, list]) =>
    list.filter((entry) => !entry.matched).map((entry) => ({ key, move: entry.move })),
  );
  delays.sort((a, b) => a - b);
  const describe = (c: MadeChange) => `${c.cluster} ${c.field} → ${c.to}`;
  return {
    changesMade: input.changes.length,
    committed: moves.length,
    committedUnmade: moves.filter((move) => !carried.has(move)).length,
    expected,
    announced: tally.announced,
    lost: lostEntries.length,
    duplicated: repeated + untied,
    untied,
    falseAnnouncements: tally.falseAnnouncements,
    outOfOrder,
    digests: tally.digests,
    otherLines: tally.otherLines,
    unobservable: uncommitted.length,
    unchangedForBot,
    missed: missed.length,
    uncommittedMs: {
      total: lengths.reduce((sum, n) => sum + n, 0),
      longest: Math.max(0, ...lengths),
    },
    delayMs: {
      p50: Math.round(percentile(delays, 50)),
      p99: Math.round(percentile(delays, 99)),
      max: Math.round(delays.at(-1) ?? 0),
    },
    lostExamples: lostEntries
      .slice(0, 5)
      .map(({ key, move }) => `${key} ${move.field} → ${move.to}`),
    missedExamples: missed.slice(0, 5).map(describe),
    unobservableChanges: uncommitted.map((change) => ({
      change: describe(change),
      from: change.at,
      until: until.get(change) ?? null,
      why: why.get(change)!,
    })),
  };
}
