/**
 * Pure scoring of a chaos run: the changes the driver made in Palette against the messages Slack
 * accepted from the bot. A message is read the way a person reads it: "<cluster>: State A → B".
 */

export type Field = "state" | "health";

export interface MadeChange {
  /** when the driver changed Palette (ms, wall clock) */
  at: number;
  cluster: string;
  project: string;
  field: Field;
  to: string;
}

export interface Delivered {
  channel: string;
  /** when Slack accepted it (ms, wall clock) */
  at: number;
  /** the message's fallback text: what a notification says in one line */
  text: string;
  /** its section blocks' text (a digest names its clusters there) */
  sections?: string[];
}

export interface ChaosScore {
  changesMade: number;
  /** changes that lasted less than a few seconds of bot uptime: no poller could see them */
  unobservable: number;
  /**
   * changes a poll did read, back to the value the bot had last committed, the state between
   * read by no committed poll (the bot was down): from its side nothing changed, so not owed
   */
  unchangedForBot: number;
  /** (channel, change) pairs the subscriptions asked for */
  expected: number;
  announced: number;
  lost: number;
  duplicated: number;
  /** "deleted"/"new" announcements, and changes to values the driver never set */
  falseAnnouncements: number;
  outOfOrder: number;
  /** one-poll digests (a flood folded into one message); the changes they name count as announced */
  digests: number;
  /** flapping/settled lines: not expected in a run that changes each cluster at most 3 times */
  otherLines: number;
  delayMs: { p50: number; p99: number; max: number };
  /** a few lost (channel, cluster, field → to) for the report */
  lostExamples: string[];
  /**
   * Each unobservable change: when its state began and ended, and the committed polls' read
   * windows nearest to it (none fits inside the state's life; the run's report adds the bots'
   * uptime windows). Times are ms of the wall clock.
   */
  unobservableChanges: Array<{
    change: string;
    from: number;
    until: number | null;
    pollsBefore: Array<readonly [number, number]>;
    pollsAfter: Array<readonly [number, number]>;
  }>;
}

export interface Announcement {
  cluster: string;
  field: Field | "deleted" | "new" | "other";
  to: string;
}

const STATE_LINE = /^State \S+ → (\S+)$/;
const HEALTH_LINE = /^Health(?: lost| recovered)?: \S+ → (\S+)$/;

/** One message → what it announces. Undefined for messages that are not about one cluster. */
export function readNotification(text: string): Announcement[] | undefined {
  const unescaped = text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  const match = /^(?::warning: )?\*?([^*:]+?)\*?: ([\s\S]+)$/.exec(unescaped);
  if (!match) return undefined;
  const cluster = match[1]!.trim();
  const lines = match[2]!.split("\n").map((line) => line.trim());
  if (/^\d+ clusters changed$/.test(cluster) || /^Watching \d+ clusters/.test(unescaped)) {
    return undefined;
  }
  return lines.map((line): Announcement => {
    const state = STATE_LINE.exec(line);
    if (state) return { cluster, field: "state", to: state[1]! };
    const health = HEALTH_LINE.exec(line);
    if (health) return { cluster, field: "health", to: health[1]! };
    if (/is gone \(Deleted\)$/.test(line)) return { cluster, field: "deleted", to: "Deleted" };
    if (/^New cluster /.test(line)) return { cluster, field: "new", to: "" };
    return { cluster, field: "other", to: line };
  });
}

const isDigest = (text: string) => /^\d+ clusters changed: /.test(text);

/** A digest's "• name: State A → B (now X/Y)" lines, read as the cards they stand for. */
function readDigest(sections: readonly string[]): Announcement[] {
  return sections
    .flatMap((section) => section.split("\n"))
    .flatMap((line) => {
      const match = /^• (.+?): (.+) \(now [^)]*\)$/.exec(line.trim());
      return match ? (readNotification(`${match[1]}: ${match[2]}`) ?? []) : [];
    });
}

/** What one message announces: a digest's named clusters, or a notification's lines. */
function announcementsOf(message: Delivered): {
  digest: boolean;
  announcements: Announcement[];
} {
  if (isDigest(message.text)) {
    return { digest: true, announcements: readDigest(message.sections ?? []) };
  }
  return { digest: false, announcements: readNotification(message.text) ?? [] };
}

/** What a run's messages said besides the field moves a score matches. */
export interface MessageTally {
  announced: number;
  /** "deleted"/"new" lines; a score adds values the driver never set */
  falseAnnouncements: number;
  digests: number;
  otherLines: number;
}

/**
 * The state and health moves the messages announce, oldest message first, each with its message;
 * digests, "deleted"/"new" and other lines are counted in `tally` instead.
 */
export function* fieldAnnouncements(
  delivered: readonly Delivered[],
  tally: MessageTally,
): Generator<{ message: Delivered; cluster: string; field: Field; to: string }> {
  for (const message of [...delivered].sort((a, b) => a.at - b.at)) {
    const { digest, announcements } = announcementsOf(message);
    if (digest) tally.digests += 1;
    for (const { cluster, field, to } of announcements) {
      if (field === "deleted" || field === "new") tally.falseAnnouncements += 1;
      else if (field === "other") tally.otherLines += 1;
      else {
        tally.announced += 1;
        yield { message, cluster, field, to };
      }
    }
  }
}

/**
 * The changes some committed poll could see: one whose reads of Palette all fell inside the time
 * the change's state lasted (from the change to the cluster's next one). A state that came and
 * went while the bot was down, starting, or in a poll that never committed (killed first) could
 * be seen by nobody; its absence from Slack is not a loss.
 */
/** When each change's state ended: the same cluster's next change (none: it lasted). */
export function lifetimes(changes: readonly MadeChange[]): Map<MadeChange, number> {
  const until = new Map<MadeChange, number>();
  const last = new Map<string, MadeChange>();
  for (const change of [...changes].sort((a, b) => a.at - b.at)) {
    const key = `${change.project} ${change.cluster}`;
    const before = last.get(key);
    if (before) until.set(before, change.at);
    last.set(key, change);
  }
  return until;
}

function observableChanges(
  changes: readonly MadeChange[],
  polls: ReadonlyArray<readonly [number, number]> | undefined,
): Set<MadeChange> {
  if (!polls) return new Set(changes);
  const until = lifetimes(changes);
  const seen = new Set<MadeChange>();
  for (const change of changes) {
    const end = until.get(change) ?? Number.POSITIVE_INFINITY;
    if (polls.some(([from, to]) => from >= change.at && to <= end)) seen.add(change);
  }
  return seen;
}

/**
 * Of the observable changes, those that are no change from the bot's side: per cluster and field,
 * in order, the value the bot surely holds (the run's `initial`, then each observable change's)
 * and whether a committed poll may have read a state in between (its read window overlaps one
 * no poll fits inside). An observable change back to the held value with nothing read between is
 * no news to the bot. Without `initial` the first change of each is owed, as before.
 */
function unchangedForTheBot(
  changes: readonly MadeChange[],
  observable: ReadonlySet<MadeChange>,
  polls: ReadonlyArray<readonly [number, number]> | undefined,
  initial: Partial<Record<Field, string>> | undefined,
): Set<MadeChange> {
  const unchanged = new Set<MadeChange>();
  if (!polls || !initial) return unchanged;
  const until = lifetimes(changes);
  const held = new Map<string, { value: string | undefined; unsure: boolean }>();
  for (const change of [...changes].sort((a, b) => a.at - b.at)) {
    const key = `${change.project} ${change.cluster} ${change.field}`;
    const bot = held.get(key) ?? { value: initial[change.field], unsure: false };
    held.set(key, bot);
    const end = until.get(change) ?? Number.POSITIVE_INFINITY;
    if (observable.has(change)) {
      if (!bot.unsure && bot.value !== undefined && bot.value === change.to) unchanged.add(change);
      bot.value = change.to;
      bot.unsure = false;
    } else if (polls.some(([from, to]) => from < end && to > change.at)) {
      // a committed poll read Palette while it lasted, though not only then: it may hold it
      bot.unsure = true;
    }
  }
  return unchanged;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/**
 * Per channel and cluster, the announced sequence is matched in order against the changes made:
 * an announcement of a change already matched is a duplicate, one that matches an earlier
 * unmatched change than the last matched is out of order, a change never matched is lost.
 */
export function scoreChaos(input: {
  changes: readonly MadeChange[];
  delivered: readonly Delivered[];
  /** channel → the project it subscribed to */
  channels: ReadonlyMap<string, string>;
  /**
   * The read windows [from, to] of the polls the bots committed (their "poll cycle committed"
   * log lines). A change no committed poll read inside its state's lifetime is counted as
   * unobservable, not as lost; announced anyway, it still counts. Omitted: every change counts.
   */
  polls?: ReadonlyArray<readonly [number, number]>;
  /** each field's value on every cluster before the first change (the run starts calm) */
  initial?: Partial<Record<Field, string>>;
}): ChaosScore {
  const made = new Map<string, { change: MadeChange; matched: boolean; expected: boolean }[]>();
  const observable = observableChanges(input.changes, input.polls);
  const unchanged = unchangedForTheBot(input.changes, observable, input.polls, input.initial);
  const owed = (change: MadeChange) => observable.has(change) && !unchanged.has(change);
  let expected = 0;
  for (const [channel, project] of input.channels) {
    for (const change of input.changes) {
      if (change.project !== project) continue;
      const key = `${channel} ${change.cluster}`;
      const list = made.get(key) ?? [];
      list.push({ change, matched: false, expected: owed(change) });
      made.set(key, list);
      if (owed(change)) expected += 1;
    }
  }
  const lastMatched = new Map<string, number>();
  const delays: number[] = [];
  let duplicated = 0;
  let outOfOrder = 0;
  const tally: MessageTally = { announced: 0, falseAnnouncements: 0, digests: 0, otherLines: 0 };
  for (const announcement of fieldAnnouncements(input.delivered, tally)) {
    const { message } = announcement;
    const key = `${message.channel} ${announcement.cluster}`;
    const list = made.get(key) ?? [];
    const same = (entry: { change: MadeChange }) =>
      entry.change.field === announcement.field && entry.change.to === announcement.to;
    const last = lastMatched.get(key) ?? -1;
    const next = list.findIndex((entry, index) => index > last && !entry.matched && same(entry));
    if (next >= 0) {
      list[next]!.matched = true;
      lastMatched.set(key, next);
      delays.push(message.at - list[next]!.change.at);
      continue;
    }
    // a change older than one already announced, arriving now: late, so out of order
    const earlier = list.findIndex((entry, index) => index < last && !entry.matched && same(entry));
    if (earlier >= 0) {
      list[earlier]!.matched = true;
      outOfOrder += 1;
      delays.push(message.at - list[earlier]!.change.at);
      continue;
    }
    if (list.some(same)) duplicated += 1;
    else tally.falseAnnouncements += 1;
  }

  const lostEntries = [...made.entries()].flatMap(([key, list]) =>
    list.filter((entry) => entry.expected && !entry.matched).map((entry) => ({ key, entry })),
  );
  delays.sort((a, b) => a - b);
  return {
    changesMade: input.changes.length,
    unobservable: input.changes.length - observable.size,
    unchangedForBot: unchanged.size,
    expected,
    announced: tally.announced,
    lost: lostEntries.length,
    duplicated,
    falseAnnouncements: tally.falseAnnouncements,
    outOfOrder,
    digests: tally.digests,
    otherLines: tally.otherLines,
    delayMs: {
      p50: Math.round(percentile(delays, 50)),
      p99: Math.round(percentile(delays, 99)),
      max: Math.round(delays.at(-1) ?? 0),
    },
    unobservableChanges: unobservableDetail(input.changes, observable, input.polls ?? []),
    lostExamples: lostEntries
      .slice(0, 5)
      .map(({ key, entry }) => `${key} ${entry.change.field} → ${entry.change.to}`),
  };
}

function unobservableDetail(
  changes: readonly MadeChange[],
  observable: ReadonlySet<MadeChange>,
  polls: ReadonlyArray<readonly [number, number]>,
): ChaosScore["unobservableChanges"] {
  const until = lifetimes(changes);
  const sorted = [...polls].sort((a, b) => a[0] - b[0]);
  return changes
    .filter((change) => !observable.has(change))
    .map((change) => {
      const end = until.get(change);
      return {
        change: `${change.cluster} ${change.field} → ${change.to}`,
        from: change.at,
        until: end ?? null,
        // the two read windows before and after the state began: why none fits in its life
        pollsBefore: sorted.filter(([from]) => from < change.at).slice(-2),
        pollsAfter: sorted.filter(([from]) => from >= change.at).slice(0, 2),
      };
    });
}
