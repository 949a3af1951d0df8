import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowAll } from "../../src/access/types.ts";
import { buildIdentity } from "../../src/app/identity.ts";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { Secret } from "../../src/secret.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { LOGIN_CALLBACK_ID, LOGIN_KEY_FIELD } from "../../src/views/login-modal.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";
import { type Replicas, startReplicasOnPostgres } from "../support/replicas.ts";
import type { BotHarness } from "../support/slack-harness.ts";
import { loginSubmissionBody } from "../support/slack-request.ts";

/** Two replicas on one PostgreSQL: a person links on one and acts through the other. */

const PERSON = "UREPLICA1";
const KEY = new Secret(Buffer.alloc(32, 6).toString("base64"));
let cluster: Replicas;
let sim: RunningSimulator;
let replicas: BotHarness[];

beforeAll(async () => {
  cluster = await startReplicasOnPostgres(2, {
    seed: 4,
    harness: (simulator) => ({
      policy: allowAll,
      identity: (store: SqlDb) =>
        buildIdentity(
          { mode: "linked", method: "key", keys: { current: KEY } },
          { db: store, clock: systemClock, logger: silentLogger, paletteApiUrl: simulator.url },
        ),
    }),
  });
  ({ sim, bots: replicas } = cluster);
}, POSTGRES_SETUP_TIMEOUT_MS);

afterAll(async () => cluster?.close());

describe("linked identities on two replicas", () => {
  it("a link made through replica A is what replica B acts with", async () => {
    const key = sim.control.issueUserKey("editor@example.com");
    const form = { callbackId: LOGIN_CALLBACK_ID, field: LOGIN_KEY_FIELD };
    const linked = await replicas[0]!.post(loginSubmissionBody(PERSON, key, form));
    expect(linked.text).toBe("");
    const running = sim.control.clusters().find((c) => c.state === "Running")!;
    sim.control.clearRequests();
    const sent = await replicas[1]!.command(`kubeconfig ${running.uid}`, { userId: PERSON });
    const [answer] = await replicas[1]!.responses(sent.responseId, 1, 10_000);
    expect(JSON.stringify(answer!.body)).toContain("downloaded as Eddie Editor");
    const download = sim.control.requests().filter((r) => r.path.endsWith("/assets/kubeconfig"));
    expect(download).toEqual([
      expect.objectContaining({ status: 200, caller: "editor@example.com" }),
    ]);
  });
});
