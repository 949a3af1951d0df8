import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccessPolicy } from "../../src/access/policy.ts";
import { systemClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { ChangeStore } from "../../src/store/changes.ts";
import { APPROVE_ACTION_ID, CONFIRM_NAME_FIELD } from "../../src/views/change.ts";
import { POSTGRES_SETUP_TIMEOUT_MS } from "../support/postgres.ts";
import { type Replicas, startReplicasOnPostgres } from "../support/replicas.ts";
import { interactiveBody, loadPayload } from "../support/slack-request.ts";

/** Two replicas on one PostgreSQL: the same approval clicked on both at once runs once. */

const ALICE = "W111";
const BOB = "W222";
let cluster: Replicas;

beforeAll(async () => {
  cluster = await startReplicasOnPostgres(2, {
    seed: 9,
    harness: () => ({
      policy: createAccessPolicy({
        allowLaunch: [],
        allowKubeconfig: [],
        allowChanges: { delete: [ALICE, BOB] },
        client: { usergroups: { users: { list: async () => ({ ok: true, users: [] }) } } },
        clock: systemClock,
        logger: silentLogger,
      }),
      approvals: { verbs: ["delete"], ttlMs: 30 * 60_000 },
      changeSchedule: () => ({ stop() {} }),
    }),
  });
}, POSTGRES_SETUP_TIMEOUT_MS);

afterAll(async () => cluster?.close());

describe("day-2 approvals on two replicas", () => {
  it("Approve clicked on both replicas at once sends one DELETE", async () => {
    const { sim, bots, fake } = cluster;
    const [a, b] = bots as [(typeof bots)[0], (typeof bots)[0]];
    const project = sim.control.projects()[0]!;
    const target = sim.control.addCluster({
      name: "replica-doomed",
      projectUid: project,
      provider: "aws",
    });

    await a.command("delete replica-doomed", { userId: ALICE, channelId: "C111" });
    const [open] = await fake.waitFor("views.open", 1, 10_000);
    const view = open!.body.view as {
      callback_id: string;
      private_metadata: string;
      blocks: unknown[];
    };
    const { payload } = loadPayload<{ payload: Record<string, unknown> }>("view_submission.json");
    const submission = {
      ...payload,
      user: { ...(payload.user as object), id: ALICE },
      view: {
        ...(payload.view as object),
        id: "VREPLICA1",
        callback_id: view.callback_id,
        private_metadata: view.private_metadata,
        blocks: view.blocks,
        state: {
          values: {
            [CONFIRM_NAME_FIELD]: {
              [CONFIRM_NAME_FIELD]: { type: "plain_text_input", value: "replica-doomed" },
            },
          },
        },
      },
      response_urls: [],
    };
    // Slack retries the submission on the other replica too: one request is recorded
    await Promise.all([a.post(interactiveBody(submission)), b.post(interactiveBody(submission))]);
    const store = new ChangeStore(a.db, systemClock);
    const deadline = Date.now() + 10_000;
    while ((await store.all()).length === 0 || !(await store.all())[0]!.requestTs) {
      if (Date.now() > deadline) throw new Error("no approval request recorded");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [request] = await store.all();
    expect(await store.all()).toHaveLength(1);

    sim.control.clearRequests();
    await Promise.all([
      a.click(APPROVE_ACTION_ID, String(request!.id), { userId: BOB }),
      b.click(APPROVE_ACTION_ID, String(request!.id), { userId: BOB }),
    ]);
    while ((await store.get(request!.id))!.status !== "accepted") {
      if (Date.now() > deadline + 10_000) throw new Error("the approval did not run");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // both clicks are done: the loser has told its clicker it was already decided
    await fake.waitFor("chat.postEphemeral", 1, 10_000);
    const deletes = sim.control
      .requests()
      .filter((r) => r.method === "DELETE" && r.path === `/v1/spectroclusters/${target.uid}`);
    expect(deletes).toHaveLength(1);
    expect(await store.get(request!.id)).toMatchObject({ approver: BOB, requester: ALICE });
  });
});
