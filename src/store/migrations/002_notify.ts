import type { Migration } from "../db.ts";

/** Tables of the notification issue (subscriptions, snapshots, cards, outbox…). */
export const notify: Migration[] = [];
