import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Whose request this is. Commands, launch forms and their look-ups are someone waiting in Slack
 * (`interactive`, the default); the poll and the launch tracker are the bot's own routine work
 * (`background`), and a reconciliation's full listing is `bulk`, behind both. The client's pacer
 * lets interactive requests go first on a prefix's budget, so a command never queues behind a
 * poll's pages, and an incremental poll never waits behind a reconciliation's. Carried through
 * async calls rather than through every client method, so the poll only has to say it once.
 */
export type RequestPriority = "interactive" | "background" | "bulk";

/**
 * Awaited before each HTTP request of a marked run goes out, retries included: the radar books
 * each request against its own budget there (RADAR_CALLS_PER_MINUTE counts requests, not
 * calls), and a gate that throws stops the request (and the call's retries) from going out.
 */
export type RequestGate = () => Promise<void>;

interface Mark {
  priority: RequestPriority;
  gate?: RequestGate;
  /** awaited right before the request goes out, after the pacer's wait and the credentials */
  lastCheck?: RequestGate;
}

const current = new AsyncLocalStorage<Mark>();
let runs = 0;

/**
 * Runs `work` with every Palette request it makes marked with `priority`.
 *
 * While any AsyncLocalStorage is enabled, Node runs async hooks on every promise in the process
 * (on Node 20 and 22): a CPU profile of a burst of slash commands put a fifth of the bot's time
 * there, all of it on the ack path, which never reads this store. So the storage is disabled
 * again when the last marked run ends: the hooks cost something only while the poll or the
 * launch tracker is at work. (A request with no mark is interactive, which is what a command is.)
 */
async function runMarked<T>(
  priority: RequestPriority,
  work: () => Promise<T>,
  gate?: RequestGate,
  lastCheck?: RequestGate,
): Promise<T> {
  runs += 1;
  try {
    return await current.run(
      { priority, ...(gate ? { gate } : {}), ...(lastCheck ? { lastCheck } : {}) },
      work,
    );
  } finally {
    runs -= 1;
    if (runs === 0) current.disable();
  }
}

/** Runs `work` with every Palette request it makes marked as background work. */
export function inBackground<T>(work: () => Promise<T>): Promise<T> {
  return runMarked("background", work);
}

/**
 * Runs `work` as bulk work: a reconciliation's full listing, which takes minutes at fleet scale
 * and must not slow the incremental polls that run meanwhile; it gets what they leave.
 */
export function inBulk<T>(work: () => Promise<T>, gate?: RequestGate): Promise<T> {
  return runMarked("bulk", work, gate);
}

/**
 * Runs `work` (a change's write) with its priority unchanged and two checks on each of its HTTP
 * requests, a re-login's or a Retry-After's re-send included: `gate` before each attempt, as
 * inBulk's, and `lastCheck` right before the request goes out, after the pacer's wait and the
 * credentials. Either one throwing sends nothing more (src/changes/execute.ts fences its claim
 * there, so a claim the lease holder took over during a Retry-After is not sent again).
 */
export function withRequestChecks<T>(
  checks: { gate: RequestGate; lastCheck?: RequestGate },
  work: () => Promise<T>,
): Promise<T> {
  return runMarked(requestPriority(), work, checks.gate, checks.lastCheck);
}

/**
 * Runs `work` as interactive (someone is waiting) with a gate before each of its requests: the
 * assistant counts a question's Palette requests there, pages and retries included, and stops
 * them at its cap or when the question's time limit has passed.
 */
export function interactiveGated<T>(work: () => Promise<T>, gate: RequestGate): Promise<T> {
  return runMarked("interactive", work, gate);
}

export function requestPriority(): RequestPriority {
  return current.getStore()?.priority ?? "interactive";
}

/** the gate of the marked run this request belongs to, if it has one */
export function requestGate(): RequestGate | undefined {
  return current.getStore()?.gate;
}

/** the last check of the marked run this request belongs to, if it has one */
export function requestLastCheck(): RequestGate | undefined {
  return current.getStore()?.lastCheck;
}

/**
 * Runs `work` (the service account's login or re-login) at the caller's priority but without its
 * gate and last check. The login is shared by every caller: a change's stale claim or the radar
 * stopping, met there, would fail it for all of them, and the login backoff would then answer the
 * poll and every command with that one caller's error for minutes. The caller's own requests
 * still meet its checks, the one after the login included.
 */
export function withoutRequestChecks<T>(work: () => Promise<T>): Promise<T> {
  const mark = current.getStore();
  if (!mark || (!mark.gate && !mark.lastCheck)) return work();
  return current.run({ priority: mark.priority }, work);
}
