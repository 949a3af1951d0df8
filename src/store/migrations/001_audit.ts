import type { Migration } from "./migration.ts";

export const audit: Migration = {
  id: 1,
  name: "audit",
  up: `
    CREATE TABLE audit (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      at TEXT NOT NULL,
      user_id TEXT NOT NULL,
      action TEXT NOT NULL,
      target TEXT NOT NULL,
      outcome TEXT NOT NULL,
      detail TEXT
    );
    CREATE INDEX audit_at ON audit (at);
  `,
};
