/**
 * Fails the test during which pg announced a deprecation (issue 37, item 7). pg 8 warns (once a
 * process) of what pg 9 refuses, e.g. a second `client.query()` while the transaction's one client
 * still runs the first; the warning alone passes every assert, so without this guard a store that
 * works today breaks on the upgrade. A vitest setup file: every test file, either backend.
 */
import { afterAll, afterEach } from "vitest";

const seen: string[] = [];

process.on("warning", (warning) => {
  if (warning.name === "DeprecationWarning" && /\bpg@9\b/.test(warning.message)) {
    seen.push(warning.message);
  }
});

function failOnSeen(): void {
  if (seen.length === 0) return;
  const messages = seen.splice(0);
  throw new Error(`pg deprecation (refused by pg 9): ${messages.join("; ")}`);
}

// the warning is emitted on the next tick: the check after the test sees one raised in it
afterEach(failOnSeen);
afterAll(failOnSeen);
