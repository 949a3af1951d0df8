/**
 * The time range of `/palette why <cluster> [since 24h|7d|<date>]`: how far back the story goes.
 * Pure. A date is a calendar day (UTC midnight) or an RFC 3339 time.
 */

export const DEFAULT_SINCE_MS = 24 * 3600_000;
/** Palette keeps its audit for a limited time; a month covers what people ask about */
export const MAX_SINCE_MS = 31 * 24 * 3600_000;

export type SinceParse =
  | { ok: true; sinceMs: number; label: string }
  | { ok: false; problem: string };

const UNITS: Record<string, number> = {
  m: 60_000,
  h: 3600_000,
  d: 24 * 3600_000,
  w: 7 * 24 * 3600_000,
};

/** `words` are what followed `since` (or nothing: the default 24 hours). */
export function parseSince(words: readonly string[], nowMs: number): SinceParse {
  if (words.length === 0) return { ok: true, sinceMs: nowMs - DEFAULT_SINCE_MS, label: "24h" };
  if (words.length > 1) {
    return {
      ok: false,
      problem: "Give one `since`: a length like `24h` or `7d`, or a date like `2026-11-20`.",
    };
  }
  const text = words[0]!.trim().toLowerCase();
  const length = /^(\d{1,4})([mhdw])$/.exec(text);
  let sinceMs: number;
  if (length) {
    sinceMs = nowMs - Number(length[1]) * UNITS[length[2]!]!;
  } else if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    sinceMs = Date.parse(`${text}T00:00:00Z`);
  } else if (/^\d{4}-\d{2}-\d{2}t[\d:.]+(z|[+-]\d{2}:\d{2})$/.test(text)) {
    sinceMs = Date.parse(text.toUpperCase());
  } else {
    return {
      ok: false,
      problem: `\`since\` wants a length like \`24h\` or \`7d\`, or a date like \`2026-11-20\`; "${text.slice(0, 40)}" is neither.`,
    };
  }
  if (Number.isNaN(sinceMs)) return { ok: false, problem: `"${text.slice(0, 40)}" is not a date.` };
  if (sinceMs >= nowMs) return { ok: false, problem: "`since` must be in the past." };
  if (nowMs - sinceMs > MAX_SINCE_MS) {
    return { ok: false, problem: "`since` reaches back at most 31 days (`31d`)." };
  }
  return { ok: true, sinceMs, label: text };
}
