/**
 * A database of its own on the run's embedded PostgreSQL (test/support/postgres-global-setup.ts),
 * for a test file or a test. The first call of a run starts the server, so a file that uses it
 * should allow its `beforeAll` a minute on a slow machine.
 */
import { inject } from "vitest";

export interface FreshDatabase {
  /** postgres://… URL of a new, empty database */
  url: string;
  name: string;
}

export async function freshDatabase(): Promise<FreshDatabase> {
  const response = await fetch(`${inject("postgresBroker")}/database`, { method: "POST" });
  if (!response.ok) {
    throw new Error(`no test database (${response.status}): ${await response.text()}`);
  }
  return (await response.json()) as FreshDatabase;
}

/** generous: the first call of a run initialises and starts PostgreSQL */
export const POSTGRES_SETUP_TIMEOUT_MS = 120_000;
