import type { EdgeHostRecord } from "../model/edge-host.ts";
import { FLAP_MAX_CHANGES, FLAP_WINDOW_MS } from "../notify/poll/flapping.ts";
import type { EdgeNews, Observation } from "./news.ts";

/**
 * Pure: an edge host that goes dark and comes back over and over (past the grace each time) is
 * damped as a cluster is (src/notify/poll/flapping.ts, same window and threshold): its news
 * counts as a transition; past FLAP_MAX_CHANGES within FLAP_WINDOW_MS one "flapping" notice
 * replaces it, later news is swallowed (the record still follows Palette, so what is told stays
 * true), and once a whole window passes without a transition one "settled" notice says where it
 * ended: dark (its notice stays open) or healthy (its notice closes).
 */
export function dampFlapping(
  previous: EdgeHostRecord | undefined,
  observed: Observation & { record: EdgeHostRecord },
  now: number,
  windowMs = FLAP_WINDOW_MS,
  maxChanges = FLAP_MAX_CHANGES,
): Observation {
  const { record, news } = observed;
  const recent = (previous?.flaps ?? []).filter((at) => at > now - windowMs);
  const wasFlapping = previous?.flapping ?? false;
  const keep = (flaps: number[], flapping: boolean, item?: EdgeNews): Observation => {
    if (flaps.length > 0) record.flaps = flaps;
    else delete record.flaps;
    if (flapping) record.flapping = true;
    else delete record.flapping;
    return item ? { record, news: item } : { record };
  };
  if (!news) {
    if (wasFlapping && recent.length === 0) {
      return keep([], false, { kind: "settled", host: record, dark: record.told !== "" });
    }
    return keep(recent, wasFlapping);
  }
  const flaps = [...recent, now];
  if (wasFlapping) return keep(flaps, true);
  if (flaps.length > maxChanges) {
    return keep(flaps, true, { kind: "flapping", host: record, changes: flaps.length });
  }
  return keep(flaps, false, news);
}
