import type { Migration } from "../db.ts";

/** Tables of the launch issue (launch requests, idempotency, watched launches…). */
export const launch: Migration[] = [];
