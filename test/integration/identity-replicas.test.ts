import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allowAll } from "../../src/access/types.ts";
import { buildIdentity } from "../../src/app/identity.ts";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import type { PaletteClient } from "../../src/palette/client.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import { LOGIN_CALLBACK_ID, LOGIN_KEY_FIELD } from "../../src/views/login-modal.ts";
import { BACKENDS, closeOpened } from "../support/backends.ts";
import { type FakeSlack, startFakeSlack } from "../support/fake-slack.ts";
import { apiKeyClient } from "../support/palette-client-helpers.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";
import { interactiveBody, loadPayload } from "../support/slack-request.ts";

/** Two replicas on one PostgreSQL: a person links on one and acts through the other. */

const PERSON = "UREPLICA1";
const KEY = new Secret(Buffer.alloc(32, 6).toString("base64"));
let sim: RunningSimulator;
let palette: PaletteClient;
let fake: FakeSlack;
const replicas: BotHarness[] = [];

beforeAll(async () => {
  sim = await startSimulator({ clusters: 10, seed: 4 });
  palette = apiKeyClient(sim, { retries: 1 });
  fake = await startFakeSlack();
  const db = await BACKENDS.find((backend) => backend.name === "postgres")!.open();
  const identity = (store: SqlDb) =>
    buildIdentity(
      { mode: "linked", method: "key", keys: { current: KEY } },
      { db: store, clock: systemClock, logger: silentLogger, paletteApiUrl: sim.url },
    );
  for (let i = 0; i < 2; i++) {
    replicas.push(await startBot({ palette, fake, db, policy: allowAll, identity }));
  }
}, POSTGRES_SETUP_TIMEOUT_MS);

afterAll(async () => {
  for (const replica of replicas) await replica.close();
  await closeOpened();
  await fake?.close();
  await palette?.close();
  await sim?.close();
});

describe("linked identities on two replicas", () => {
  it("a link made through replica A is what replica B acts with", async () => {
    const { payload } = loadPayload<{ payload: Record<string, unknown> }>("view_submission.json");
    const key = sim.control.issueUserKey("editor@example.com");
    const submit = {
      ...payload,
      user: { ...(payload.user as object), id: PERSON },
      view: {
        ...(payload.view as object),
        callback_id: LOGIN_CALLBACK_ID,
        state: {
          values: {
            [LOGIN_KEY_FIELD]: { [LOGIN_KEY_FIELD]: { type: "plain_text_input", value: key } },
          },
        },
      },
    };
    const linked = await replicas[0]!.post(interactiveBody(submit));
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
