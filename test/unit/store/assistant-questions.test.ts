import { afterEach, describe, expect, it } from "vitest";
import { AssistantQuestionLimit } from "../../../src/store/assistant-questions.ts";
import { BACKENDS, closeOpened } from "../../support/backends.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../../support/postgres.ts";

/**
 * ASSISTANT_PER_USER_PER_HOUR in the shared store (issue 36 item 7, migration 111), on both
 * backends. On PostgreSQL two replicas are two connection pools to one database; SQLite is one
 * process per file (the bot refuses a second), so there the two limit objects share its one
 * connection. Each takes for one person at once.
 */
afterEach(async () => {
  await closeOpened();
});

const HOUR = 3_600_000;

describe.each(BACKENDS)("the assistant's hourly limit on $name", (backend) => {
  it(
    "holds across replicas taking at once: exactly the bound is let through",
    async () => {
      const open = await backend.database();
      const a = await open();
      const b = backend.name === "postgres" ? await open() : a;
      try {
        const replicas = [new AssistantQuestionLimit(a), new AssistantQuestionLimit(b)];
        const now = 1_800_000_000_000;
        const takes = await Promise.all(
          Array.from({ length: 12 }, (_, i) => replicas[i % 2]!.take("WALICE", now + i, 5)),
        );
        expect(takes.filter((retryAt) => retryAt === undefined)).toHaveLength(5);
        // a refusal says when the oldest of the hour leaves it
        const refused = takes.filter((retryAt) => retryAt !== undefined);
        expect(Math.min(...(refused as number[]))).toBeGreaterThanOrEqual(now + HOUR);
        // another person has their own hour; an hour on, the person may ask again
        expect(await replicas[1]!.take("WBOB", now, 5)).toBeUndefined();
        expect(await replicas[0]!.take("WALICE", now + 12 + HOUR, 5)).toBeUndefined();
      } finally {
        await a.close();
        if (b !== a) await b.close();
      }
    },
    POSTGRES_SETUP_TIMEOUT_MS,
  );
});
