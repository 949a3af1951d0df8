/**
 * Change freezes: while one covers a cluster, every change verb (launch included) is refused
 * with who froze it, why and until when; reads and notifications go on. Pure.
 */

export type FreezeScope =
  | { kind: "all" }
  | { kind: "project"; uid: string }
  | { kind: "cluster"; uid: string; name: string };

export interface Freeze {
  id: number;
  scope: FreezeScope;
  untilMs: number;
  reason: string;
  frozenBy: string;
  createdAt: number;
  /** the channel the freeze was announced in (absent for freezes older than this record) */
  announcedIn?: string;
}

/** What a change is about to touch: a cluster (with its project) or, for a launch, a project. */
export interface FreezeTarget {
  clusterUid?: string;
  projectUid?: string;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** A freeze longer than this is refused: a forgotten freeze blocks on-call work for good. */
export const MAX_FREEZE_DAYS = 30;

export function covers(freeze: Freeze, target: FreezeTarget, nowMs: number): boolean {
  if (freeze.untilMs <= nowMs) return false;
  switch (freeze.scope.kind) {
    case "all":
      return true;
    case "project":
      return target.projectUid !== undefined && target.projectUid === freeze.scope.uid;
    case "cluster":
      return target.clusterUid !== undefined && target.clusterUid === freeze.scope.uid;
  }
}

/** The freeze that blocks a change, the one that lasts longest when several do. */
export function blockingFreeze(
  freezes: readonly Freeze[],
  target: FreezeTarget,
  nowMs: number,
): Freeze | undefined {
  let found: Freeze | undefined;
  for (const freeze of freezes) {
    if (covers(freeze, target, nowMs) && (!found || freeze.untilMs > found.untilMs)) found = freeze;
  }
  return found;
}

export type FreezeEnd = { ok: true; untilMs: number } | { ok: false; problem: string };

const DURATION = /^(\d{1,4})(m|min|h|d|w)$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// an ISO date-time with a zone (Z or ±hh:mm): without one it would mean the server's zone
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

const UNIT_MS: Record<string, number> = {
  m: MINUTE_MS,
  min: MINUTE_MS,
  h: HOUR_MS,
  d: DAY_MS,
  w: 7 * DAY_MS,
};

/**
 * When a freeze ends: a length from now (`90m`, `4h`, `2d`, `1w`), a day (`2026-12-01`, as it
 * begins, UTC) or an instant with its zone (`2026-12-01T18:00Z`, `2026-12-01T18:00+01:00`).
 */
export function freezeUntil(text: string, nowMs: number): FreezeEnd {
  const value = text.trim();
  let untilMs: number;
  const duration = DURATION.exec(value);
  if (duration) {
    untilMs = nowMs + Number(duration[1]) * UNIT_MS[duration[2]!.toLowerCase()]!;
  } else if (DATE.test(value)) {
    const [, y, m, d] = DATE.exec(value)!;
    untilMs = Date.UTC(Number(y), Number(m) - 1, Number(d));
    if (new Date(untilMs).toISOString().slice(0, 10) !== value) return badTime();
  } else if (DATE_TIME.test(value)) {
    untilMs = Date.parse(value);
    if (Number.isNaN(untilMs)) return badTime();
  } else {
    return badTime();
  }
  if (untilMs <= nowMs) return { ok: false, problem: "That time has passed; pick a later one." };
  if (untilMs - nowMs > MAX_FREEZE_DAYS * DAY_MS) {
    return { ok: false, problem: `A freeze lasts at most ${MAX_FREEZE_DAYS} days.` };
  }
  return { ok: true, untilMs };
}

function badTime(): FreezeEnd {
  return {
    ok: false,
    problem:
      "Give the end as a length (`4h`, `2d`), a day (`2026-12-01`) or a time with its zone (`2026-12-01T18:00Z`).",
  };
}

export function sameScope(a: FreezeScope, b: FreezeScope): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "all") return true;
  return a.uid === (b as { uid: string }).uid;
}
