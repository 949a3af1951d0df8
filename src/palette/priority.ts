import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Whose request this is. Commands, launch forms and their look-ups are someone waiting in Slack
 * (`interactive`, the default); the poll and the launch tracker are the bot's own routine work
 * (`background`). The client's pacer lets interactive requests go first on a prefix's budget, so
 * a command never queues behind a poll's pages. Carried through async calls rather than through
 * every client method, so the poll only has to say it once.
 */
export type RequestPriority = "interactive" | "background";

const current = new AsyncLocalStorage<RequestPriority>();

/** Runs `work` with every Palette request it makes marked as background work. */
export function inBackground<T>(work: () => Promise<T>): Promise<T> {
  return current.run("background", work);
}

export function requestPriority(): RequestPriority {
  return current.getStore() ?? "interactive";
}
