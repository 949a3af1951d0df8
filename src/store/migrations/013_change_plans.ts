import type { Migration } from "./migration.ts";

/**
 * A change's plan while its confirmation is open (issue 25): Slack's `private_metadata` holds at
 * most 3,000 characters, and an upgrade with many packs or a repave with many reasons is longer,
 * so the modal carries only the row's id. Rows end at `expires_at` and are pruned as new ones come.
 */
export const changePlans: Migration = {
  id: 70,
  name: "change_plans",
  up: `
    CREATE TABLE change_plans (
      id TEXT PRIMARY KEY,
      plan TEXT NOT NULL,
      channel TEXT NOT NULL,
      requester TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    );
    CREATE INDEX change_plans_expires_at ON change_plans (expires_at);
  `,
};
