import { afterEach, describe, expect, it } from "vitest";
import { ChangePlanStore } from "../../src/store/change-plans.ts";
import { ChangeStore } from "../../src/store/changes.ts";
import {
  APPROVE_ACTION_ID,
  CHANGE_CALLBACK_ID,
  CONFIRM_NAME_FIELD,
  REJECT_ACTION_ID,
} from "../../src/views/change.ts";
import {
  allChanges,
  ask as askAs,
  awsCluster,
  CHANNEL,
  changeOrFeature,
  closeChangesHarnesses,
  type ChangesHarness as Harness,
  type OpenedView,
  RESIZE_MS,
  settle,
  startChangesHarness,
  submitConfirmation,
  texts,
  tick,
  waitForCall,
} from "../support/changes-harness.ts";
import { requestDefinition, schemaErrors } from "../support/simulator-openapi.ts";
import { interactiveBody, loadPayload } from "../support/slack-request.ts";

/**
 * Day-2 changes end to end: signed Slack requests into the bot, the real Palette client, the
 * simulator behind it (its clock moved by hand), the fake Slack recording what the bot sent.
 */

/** may scale and delete */
const ALICE = "W111";
/** may scale and delete too: the second person */
const BOB = "W222";
/** may do neither */
const CAROL = "W333";

afterEach(closeChangesHarnesses);

function start(options: { approvals?: string[] } = {}): Promise<Harness> {
  return startChangesHarness({
    isWrite: changeOrFeature,
    keepBodies: true,
    access: {
      allowLaunch: [ALICE],
      allowChanges: allChanges([ALICE, BOB], [ALICE]),
    },
    approvals: options.approvals,
  });
}

let viewSequence = 0;

/** `/palette <text>` and the confirmation Slack was asked to open, if any */
const ask = (h: Harness, text: string, userId = ALICE) =>
  askAs(h, text, { userId, viewPrefix: "VC" });

/** the confirmation submitted (with the typed name, when asked) */
const confirm = (h: Harness, view: OpenedView, userId = ALICE, typedName?: string) =>
  submitConfirmation(h, view, { userId, typedName });

/** a click on a request card's Approve or Reject */
async function decide(h: Harness, actionId: string, changeId: number, userId: string) {
  return h.bot.click(actionId, String(changeId), { userId });
}

const poolPath = (configUid: string) =>
  `/v1/cloudconfigs/aws/${configUid}/machinePools/worker-pool`;

describe("day-2: scale", () => {
  it("allowed → confirmed → exactly one PUT with the pool's body → the card follows to 5 Running", async () => {
    const h = await start();
    const cluster = awsCluster(h, "scale-me");
    const { view } = await ask(h, "scale scale-me worker-pool 5");
    expect(view?.callback_id).toBe(CHANGE_CALLBACK_ID);
    expect(JSON.stringify(view!.blocks)).toContain("3 → *5* nodes");
    expect(h.writes).toEqual([]);

    const answer = await confirm(h, view!);
    expect(answer.status).toBe(200);
    const card = await waitForCall(h, "chat.postMessage", "Scaling");
    expect(card).toContain("worker-pool");
    expect(card).toContain("3 → 5");

    expect(h.writes).toHaveLength(1);
    const write = h.writes[0]!;
    const configUid = write.path.split("/")[4]!;
    expect(write.method).toBe("PUT");
    expect(write.path).toBe(poolPath(configUid));
    expect(
      schemaErrors(
        requestDefinition("put", "/v1/cloudconfigs/aws/{configUid}/machinePools/{machinePoolName}"),
        write.body,
      ),
    ).toEqual([]);
    expect(write.body).toMatchObject({
      cloudConfig: { instanceType: "m5.xlarge" },
      poolConfig: { name: "worker-pool", size: 5, minSize: 5, maxSize: 5, isControlPlane: false },
    });
    expect(h.sim.control.clusters().find((c) => c.uid === cluster.uid)).toBeDefined();

    // Palette provisions the two new machines; the follower edits the card as they come up
    await tick(h);
    await waitForCall(h, "chat.update", "3 of 5 Running");
    h.clock.advance(RESIZE_MS + 1_000);
    await tick(h);
    const done = await waitForCall(h, "chat.update", "Scaled");
    expect(done).toContain("5 Running, 5 s");
    const [record] = await new ChangeStore(h.bot.db, h.clock).all();
    expect(record).toMatchObject({ status: "done", requester: ALICE });
    const audit = (await h.bot.audit.recent(20)).filter((row) => row.action === "change");
    expect(audit.map((row) => row.outcome)).toEqual(
      expect.arrayContaining(["created", "accepted"]),
    );
  });

  it("not allowed: refused at the command, Palette never written", async () => {
    const h = await start();
    awsCluster(h, "not-yours");
    const { view, reply } = await ask(h, "scale not-yours worker-pool 5", CAROL);
    expect(view).toBeUndefined();
    expect(reply).toContain("not allowed to scale");
    expect(reply).toContain("ALLOW_SCALE");
    expect(h.writes).toEqual([]);
  });

  it("frozen: refused with who froze it and why, at the command and at a confirmation already open", async () => {
    const h = await start();
    awsCluster(h, "frozen-one");
    // the modal opens before the freeze; the confirmation comes after it
    const { view } = await ask(h, "scale frozen-one worker-pool 4");
    const froze = await h.bot.command("freeze frozen-one until 2h release train", {
      userId: BOB,
      channelId: CHANNEL,
    });
    const [frozeReply] = await h.bot.responses(froze.responseId);
    expect(JSON.stringify(frozeReply!.body)).toContain("frozen until");

    await confirm(h, view!);
    const told = await waitForCall(h, "chat.postEphemeral", "frozen by");
    expect(told).toContain("release train");
    expect(told).toContain("<@W222>");

    const again = await ask(h, "scale frozen-one worker-pool 4");
    expect(again.view).toBeUndefined();
    expect(again.reply).toContain("release train");
    expect(h.writes).toEqual([]);

    // lifted: the same change goes through
    const lift = await h.bot.command("unfreeze frozen-one release done", {
      userId: BOB,
      channelId: CHANNEL,
    });
    await h.bot.responses(lift.responseId);
    const after = await ask(h, "scale frozen-one worker-pool 4");
    await confirm(h, after.view!);
    await waitForCall(h, "chat.postMessage", "Scaling");
    expect(h.writes).toHaveLength(1);
  });

  it("stale: the pool changed since the modal opened → refused with what changed, nothing sent", async () => {
    const h = await start();
    awsCluster(h, "moving");
    const first = await ask(h, "scale moving worker-pool 5");
    const second = await ask(h, "scale moving worker-pool 4");
    await confirm(h, second.view!);
    await waitForCall(h, "chat.postMessage", "Scaling");
    expect(h.writes).toHaveLength(1);

    await confirm(h, first.view!);
    const told = await waitForCall(h, "chat.postEphemeral", "changed since");
    expect(told).toContain("The size of pool worker-pool: now 4 nodes (it was 3 nodes).");
    expect(h.writes).toHaveLength(1);
  });

  it("a Slack retry of the same confirmation sends one PUT", async () => {
    const h = await start();
    awsCluster(h, "twice");
    const { view } = await ask(h, "scale twice worker-pool 6");
    await Promise.all([confirm(h, view!), confirm(h, view!)]);
    await waitForCall(h, "chat.postMessage", "Scaling");
    await settle(h);
    expect(h.writes).toHaveLength(1);
    expect(await new ChangeStore(h.bot.db, h.clock).all()).toHaveLength(1);
    // a retry after the change went out is the same confirmation: no 'Not sent, it changed'
    await confirm(h, view!);
    await settle(h);
    expect(h.writes).toHaveLength(1);
    expect(texts(h.bot.fake.callsTo("chat.postEphemeral")).join("")).not.toContain("Not sent");
  });

  it("Palette refuses: the card says Palette's reason", async () => {
    const h = await start();
    awsCluster(h, "refused");
    const { view } = await ask(h, "scale refused worker-pool 5");
    h.sim.control.addFault({
      pathPrefix: "/v1/cloudconfigs",
      method: "PUT",
      kind: "status",
      status: 403,
    });
    await confirm(h, view!);
    const card = await waitForCall(h, "chat.postMessage", "failed");
    expect(card).toContain("Scaling");
    const [record] = await new ChangeStore(h.bot.db, h.clock).all();
    expect(record!.status).toBe("failed");
  });
});

describe("day-2: delete", () => {
  it("the typed name must match; then one DELETE, followed until the cluster is gone", async () => {
    const h = await start();
    const cluster = awsCluster(h, "retire-me");
    const { view } = await ask(h, "delete retire-me");
    expect(JSON.stringify(view!.blocks)).toContain(CONFIRM_NAME_FIELD);

    const wrong = await confirm(h, view!, ALICE, "retire-you");
    expect(wrong.body.response_action).toBe("errors");
    expect(wrong.body.errors[CONFIRM_NAME_FIELD]).toContain("retire-me");
    expect(h.writes).toEqual([]);

    await confirm(h, view!, ALICE, "retire-me");
    await waitForCall(h, "chat.postMessage", "Deleting");
    expect(h.writes).toEqual([
      { method: "DELETE", path: `/v1/spectroclusters/${cluster.uid}`, body: undefined },
    ]);
    await tick(h);
    await waitForCall(h, "chat.update", "Deleting");
    h.clock.advance(RESIZE_MS + 1_000);
    await tick(h);
    const done = await waitForCall(h, "chat.update", "Deleted");
    expect(done).toContain("retire-me");
  });
});

describe("day-2: two-person rule", () => {
  async function requested(h: Harness, name: string) {
    awsCluster(h, name);
    const { view } = await ask(h, `delete ${name}`);
    expect(JSON.stringify(view)).toContain("Request approval");
    await confirm(h, view!, ALICE, name);
    await waitForCall(h, "chat.postMessage", "Change needs approval");
    const [record] = await new ChangeStore(h.bot.db, h.clock).all();
    expect(record!.status).toBe("awaiting_approval");
    expect(h.writes).toEqual([]);
    return record!;
  }

  it("the requester's own approval is refused; a second person's runs it once, even clicked twice at once", async () => {
    const h = await start({ approvals: ["delete"] });
    const record = await requested(h, "two-keys");

    await decide(h, APPROVE_ACTION_ID, record.id, ALICE);
    await waitForCall(h, "chat.postEphemeral", "someone else must approve");
    expect(h.writes).toEqual([]);

    await decide(h, APPROVE_ACTION_ID, record.id, CAROL);
    await waitForCall(h, "chat.postEphemeral", "not allowed to delete");
    expect(h.writes).toEqual([]);

    await Promise.all([
      decide(h, APPROVE_ACTION_ID, record.id, BOB),
      decide(h, APPROVE_ACTION_ID, record.id, BOB),
    ]);
    await waitForCall(h, "chat.postMessage", "Deleting");
    await waitForCall(h, "chat.postEphemeral", "already");
    expect(h.writes.filter((w) => w.method === "DELETE")).toHaveLength(1);
    const [after] = await new ChangeStore(h.bot.db, h.clock).all();
    expect(after).toMatchObject({ status: "accepted", approver: BOB, requester: ALICE });
    const card = await waitForCall(h, "chat.update", "Approved by");
    expect(card).toContain("<@W222>");
  });

  it("an expired request cannot be approved; a rejected one never runs", async () => {
    const h = await start({ approvals: ["delete"] });
    const record = await requested(h, "too-late");
    h.clock.advance(31 * 60_000);
    await decide(h, APPROVE_ACTION_ID, record.id, BOB);
    await waitForCall(h, "chat.postEphemeral", "already expired");
    await waitForCall(h, "chat.update", "Expired");
    expect(h.writes).toEqual([]);

    const other = await (async () => {
      awsCluster(h, "say-no");
      const { view } = await ask(h, "delete say-no");
      await confirm(h, view!, ALICE, "say-no");
      await waitForCall(h, "chat.postMessage", "say-no");
      return (await new ChangeStore(h.bot.db, h.clock).all()).find(
        (r) => r.plan.cluster.name === "say-no",
      )!;
    })();
    await decide(h, REJECT_ACTION_ID, other.id, BOB);
    await waitForCall(h, "chat.update", "Rejected by");
    await decide(h, APPROVE_ACTION_ID, other.id, BOB);
    await waitForCall(h, "chat.postEphemeral", "already rejected");
    expect(h.writes).toEqual([]);
  });
});

describe("day-2: maintenance (cordon, repave approval, pause)", () => {
  /** the first machine of the worker pool, as `/palette nodes` shows it */
  async function workerMachine(h: Harness, clusterUid: string) {
    const cluster = await h.palette.getCluster(clusterUid, { projectUid: h.project });
    const ref = cluster.spec!.cloudConfigRef!;
    const [machine] = await h.palette.listMachines(ref.kind!, ref.uid!, "worker-pool", {
      projectUid: h.project,
    });
    return { name: machine!.metadata!.name!, uid: machine!.metadata!.uid!, configUid: ref.uid! };
  }

  it("cordon: one PUT …/maintenance {action: cordon}, followed until Palette says Complete; uncordon back", async () => {
    const h = await start();
    const cluster = awsCluster(h, "drain-me");
    const machine = await workerMachine(h, cluster.uid);
    const { view } = await ask(h, `cordon drain-me ${machine.name}`);
    expect(JSON.stringify(view!.blocks)).toContain(machine.name);
    await confirm(h, view!);
    await waitForCall(h, "chat.postMessage", "Cordoning");
    const path = `/v1/cloudconfigs/aws/${machine.configUid}/machinePools/worker-pool/machines/${machine.uid}/maintenance`;
    expect(h.writes).toEqual([{ method: "PUT", path, body: { action: "cordon" } }]);
    expect(
      schemaErrors(
        requestDefinition(
          "put",
          "/v1/cloudconfigs/{cloudType}/{configUid}/machinePools/{machinePoolName}/machines/{machineUid}/maintenance",
        ),
        h.writes[0]!.body,
      ),
    ).toEqual([]);
    await tick(h);
    await waitForCall(h, "chat.update", "InProgress");
    h.clock.advance(RESIZE_MS + 1_000);
    await tick(h);
    await waitForCall(h, "chat.update", "Cordoned");

    // cordoned twice is refused with the reason; uncordon puts it back
    const again = await ask(h, `cordon drain-me ${machine.name}`);
    expect(again.reply).toContain("already cordoned");
    const back = await ask(h, `uncordon drain-me ${machine.name}`);
    await confirm(h, back.view!);
    await waitForCall(h, "chat.postMessage", "Uncordoning");
    expect(h.writes.map((w) => w.body)).toEqual([{ action: "cordon" }, { action: "uncordon" }]);
  });

  it("cordon needs ALLOW_MAINTENANCE; an unknown machine is named back with the pool's machines", async () => {
    const h = await start();
    const cluster = awsCluster(h, "who-may");
    const machine = await workerMachine(h, cluster.uid);
    const refused = await ask(h, `cordon who-may ${machine.name}`, CAROL);
    expect(refused.reply).toContain("ALLOW_MAINTENANCE");
    const unknown = await ask(h, "cordon who-may no-such-node");
    expect(unknown.reply).toContain("no machine");
    expect(unknown.reply).toContain(machine.name);
    expect(h.writes).toEqual([]);
  });

  it("repave approve: only a Pending repave, its reasons shown; one PATCH, then Approved", async () => {
    const h = await start();
    const cluster = awsCluster(h, "repave-me");
    const none = await ask(h, "repave approve repave-me");
    expect(none.reply).toContain("no repave waiting");
    h.sim.control.setRepavePending(cluster.uid, [
      "kubernetes 1.29.4 → 1.29.6 changes the node image",
    ]);
    // the cluster card says so and carries the button when it reads the cluster itself (a UID
    // lookup; a name lookup stays at two Palette calls, search and overview, which do not say)
    const card = await h.bot.command(`cluster ${cluster.uid}`, {
      userId: ALICE,
      channelId: CHANNEL,
    });
    const [shown] = await h.bot.responses(card.responseId);
    expect(JSON.stringify(shown!.body)).toContain("Palette holds a repave");
    expect(JSON.stringify(shown!.body)).toContain(`repave approve ${cluster.uid}`);
    const { view } = await ask(h, "repave approve repave-me");
    expect(JSON.stringify(view!.blocks)).toContain("1.29.6 changes the node image");
    await confirm(h, view!);
    await waitForCall(h, "chat.postMessage", "Approving the repave");
    expect(h.writes).toEqual([
      {
        method: "PATCH",
        path: `/v1/spectroclusters/${cluster.uid}/repave/approve`,
        body: undefined,
      },
    ]);
    await tick(h);
    await waitForCall(h, "chat.update", "Approved the repave");
  });

  it("pause: virtual clusters only, the typed name, one PATCH {lifecycleConfig: {pause: true}}, followed to Paused; resume", async () => {
    const h = await start();
    awsCluster(h, "not-virtual");
    const notVirtual = await ask(h, "pause not-virtual");
    expect(notVirtual.reply).toContain("virtual clusters only");
    const vc = h.sim.control.addCluster({
      name: "dev-vc",
      projectUid: h.project,
      provider: "virtual",
    });
    const { view } = await ask(h, "pause dev-vc");
    const wrong = await confirm(h, view!, ALICE, "dev");
    expect(wrong.body.response_action).toBe("errors");
    await confirm(h, view!, ALICE, "dev-vc");
    await waitForCall(h, "chat.postMessage", "Pausing");
    const path = `/v1/spectroclusters/${vc.uid}/clusterConfig/lifecycleConfig`;
    expect(h.writes).toEqual([
      { method: "PATCH", path, body: { lifecycleConfig: { pause: true } } },
    ]);
    expect(
      schemaErrors(
        requestDefinition("patch", "/v1/spectroclusters/{uid}/clusterConfig/lifecycleConfig"),
        h.writes[0]!.body,
      ),
    ).toEqual([]);
    h.clock.advance(5_000);
    await tick(h);
    await waitForCall(h, "chat.update", "Paused");

    const resume = await ask(h, "resume dev-vc");
    await confirm(h, resume.view!);
    await waitForCall(h, "chat.postMessage", "Resuming");
    expect(h.writes.at(-1)).toEqual({
      method: "PATCH",
      path,
      body: { lifecycleConfig: { pause: false } },
    });
  });
});

describe("day-2: the cards' Actions… menu", () => {
  /** a pick in an "Actions…" overflow, as Slack sends it (block_actions, selected_option) */
  async function pick(h: Harness, actionId: string, command: string, userId = ALICE) {
    const { payload } = loadPayload<{ payload: Record<string, unknown> }>(
      "block_actions.button_in_message.json",
    );
    const responseId = `pick${++viewSequence}`;
    const body = {
      ...payload,
      user: { ...(payload.user as object), id: userId },
      trigger_id: `${viewSequence}.777.trigger`,
      response_url: `${h.bot.fake.url}/response/${responseId}`,
      actions: [
        {
          type: "overflow",
          action_id: actionId,
          block_id: "menu",
          selected_option: { text: { type: "plain_text", text: "…" }, value: command },
          action_ts: "1700000000.000200",
        },
      ],
    };
    const answer = await h.bot.post(interactiveBody(body));
    expect(answer.status).toBe(200);
    return responseId;
  }

  it("the cluster card offers the changes that fit; Scale a pool… → pool buttons → the confirmation", async () => {
    const h = await start();
    const cluster = awsCluster(h, "menu-me");
    const card = await h.bot.command("cluster menu-me", { userId: ALICE, channelId: CHANNEL });
    const [reply] = await h.bot.responses(card.responseId);
    const blocks = JSON.stringify(reply!.body);
    expect(blocks).toContain('"type":"overflow"');
    for (const label of [
      "Scale a pool…",
      "Cordon a node…",
      "Upgrade…",
      "Back up now…",
      "Delete…",
    ]) {
      expect(blocks).toContain(label);
    }
    expect(blocks).not.toContain("Pause…");
    const menu = (
      reply!.body.blocks as Array<{ type: string; elements?: Array<Record<string, unknown>> }>
    )
      .flatMap((block) => block.elements ?? [])
      .find((element) => element.type === "overflow")!;
    const scale = (menu.options as Array<{ value: string; text: { text: string } }>).find(
      (option) => option.text.text === "Scale a pool…",
    )!;
    expect(scale.value).toContain(cluster.uid);

    const responseId = await pick(h, String(menu.action_id), scale.value);
    const [choice] = await h.bot.responses(responseId);
    const text = JSON.stringify(choice!.body);
    expect(text).toContain("worker-pool → 4");
    expect(text).toContain("worker-pool → 2");
    expect(text).not.toContain("cp-pool →");

    const before = h.bot.fake.callsTo("views.open").length;
    await h.bot.click(
      "palette_run:choice_0",
      `scale ${cluster.uid} project:${h.project} worker-pool 4`,
    );
    const [opened] = (await h.bot.fake.waitFor("views.open", before + 1, 3_000)).slice(before);
    expect(JSON.stringify(opened!.body.view)).toContain("3 → *4* nodes");
    expect(h.writes).toEqual([]);
  });

  it("a person without ALLOW_SCALE picking Scale a pool… is refused before any choice", async () => {
    const h = await start();
    const cluster = awsCluster(h, "menu-carol");
    const responseId = await pick(h, "palette_run:actions_card", `scale ${cluster.uid}`, CAROL);
    const [reply] = await h.bot.responses(responseId);
    expect(JSON.stringify(reply!.body)).toContain("not allowed to scale");
  });
});

describe("day-2: backup now", () => {
  it("only where a backup location is configured; one POST …/backup/onDemand with the policy's settings, followed to Completed", async () => {
    const h = await start();
    const cluster = awsCluster(h, "keep-safe");
    const nowhere = await ask(h, "backup keep-safe");
    expect(nowhere.reply).toContain("no backup location configured");
    expect(nowhere.reply).toContain("backup policy");

    h.sim.control.setBackupLocation(cluster.uid, "s3-backups");
    const { view } = await ask(h, "backup keep-safe");
    expect(JSON.stringify(view!.blocks)).toContain("s3-backups");
    await confirm(h, view!);
    await waitForCall(h, "chat.postMessage", "Backing up");
    expect(h.writes).toHaveLength(1);
    const write = h.writes[0]!;
    expect(write).toMatchObject({
      method: "POST",
      path: `/v1/spectroclusters/${cluster.uid}/features/backup/onDemand`,
      body: {
        backupLocationName: "s3-backups",
        durationInHours: 168,
        includeClusterResources: true,
      },
    });
    expect(
      schemaErrors(
        requestDefinition("post", "/v1/spectroclusters/{uid}/features/backup/onDemand"),
        write.body,
      ),
    ).toEqual([]);
    await tick(h);
    await waitForCall(h, "chat.update", "InProgress");
    h.clock.advance(RESIZE_MS + 1_000);
    await tick(h);
    const done = await waitForCall(h, "chat.update", "Backed up");
    expect(done).toContain("s3-backups");
    const [record] = await new ChangeStore(h.bot.db, h.clock).all();
    expect(record).toMatchObject({ status: "done", paletteRef: expect.stringMatching(/^br/) });
  });
});

describe("day-2: logs", () => {
  it("one POST …/features/logFetcher; when Palette has the file, it goes to the requester's DM only", async () => {
    const h = await start();
    const cluster = awsCluster(h, "noisy");
    const refused = await ask(h, "logs noisy", BOB);
    expect(refused.reply).toContain("ALLOW_LOGS");
    // a freeze stops changes, not reads: logs change nothing on the cluster
    const froze = await h.bot.command("freeze all until 1h quiet week", {
      userId: ALICE,
      channelId: CHANNEL,
    });
    await h.bot.responses(froze.responseId);
    const { view } = await ask(h, "logs noisy");
    expect(JSON.stringify(view!.blocks)).toContain("comes to your DMs only");
    await confirm(h, view!);
    await waitForCall(h, "chat.postMessage", "Fetching the logs of");
    expect(h.writes).toHaveLength(1);
    expect(h.writes[0]).toMatchObject({
      method: "POST",
      path: `/v1/spectroclusters/${cluster.uid}/features/logFetcher`,
    });
    expect(
      schemaErrors(
        requestDefinition("post", "/v1/spectroclusters/{uid}/features/logFetcher"),
        h.writes[0]!.body,
      ),
    ).toEqual([]);
    h.clock.advance(RESIZE_MS + 1_000);
    await tick(h);
    const done = await waitForCall(h, "chat.update", "sent to your DMs");
    expect(done).toContain("noisy-logs.zip");
    // the file went to Alice's DM (conversations.open with her), its bytes through the upload URL
    const dm = h.bot.fake.callsTo("conversations.open");
    expect(dm.map((call) => call.body.users)).toEqual([ALICE]);
    const uploaded = [...h.bot.fake.uploads.values()].map((bytes) => bytes.toString("utf8"));
    expect(uploaded).toEqual([expect.stringContaining("simulated logs of noisy")]);
  });
});

describe("day-2: upgrade", () => {
  it("offers the newer versions, shows the packs that change, wants the name typed, sends one PATCH …/profiles, followed until applied", async () => {
    const h = await start();
    const cluster = awsCluster(h, "old-k8s");
    const offered = await ask(h, "upgrade old-k8s");
    expect(offered.reply).toContain("aws-base-k8s → 1.1.0");
    const older = await ask(h, "upgrade old-k8s aws-base-k8s 1.0.0");
    expect(older.reply).toContain("not newer");

    const { view } = await ask(h, "upgrade old-k8s aws-base-k8s 1.1.0");
    const blocks = JSON.stringify(view!.blocks);
    expect(blocks).toContain("1.0.0 → *1.1.0*");
    expect(blocks).toContain("`kubernetes` 1.29.4 → 1.29.6");
    expect(blocks).toContain("`cni-calico` 3.27.0 → 3.27.3");
    expect(blocks).not.toContain("`ubuntu`");
    const wrong = await confirm(h, view!, ALICE, "old");
    expect(wrong.body.response_action).toBe("errors");
    await confirm(h, view!, ALICE, "old-k8s");
    await waitForCall(h, "chat.postMessage", "Upgrading");
    expect(h.writes).toHaveLength(1);
    const write = h.writes[0]!;
    expect(write.method).toBe("PATCH");
    expect(write.path).toBe(`/v1/spectroclusters/${cluster.uid}/profiles`);
    expect(
      schemaErrors(requestDefinition("patch", "/v1/spectroclusters/{uid}/profiles"), write.body),
    ).toEqual([]);
    const [swap] = (write.body as { profiles: Array<{ uid: string; replaceWithProfile: string }> })
      .profiles;
    expect(swap!.uid).not.toBe(swap!.replaceWithProfile);

    await tick(h);
    await waitForCall(h, "chat.update", "applying");
    h.clock.advance(5_000);
    await tick(h);
    await waitForCall(h, "chat.update", "aws-base-k8s 1.1.0 applied");
    const after = await ask(h, "upgrade old-k8s");
    expect(after.reply).toContain("newest version");
  });
});

describe("day-2: the confirmation's boundary", () => {
  it("a confirmation whose plan names a project outside PALETTE_PROJECTS is refused, nothing sent", async () => {
    const h = await start();
    awsCluster(h, "edge-of-map");
    const { view } = await ask(h, "delete edge-of-map");
    // the plan kept for the modal names another project (the confirmation checks it again)
    const { planId } = JSON.parse(view!.private_metadata) as { planId: string };
    const kept = (await new ChangePlanStore(h.bot.db, h.clock).get(planId))!;
    kept.plan.cluster.projectUid = h.sim.control.projects()[1]!;
    await h.bot.db.run("UPDATE change_plans SET plan = ? WHERE id = ?", [
      JSON.stringify(kept.plan),
      planId,
    ]);
    await confirm(h, view!, ALICE, "edge-of-map");
    await waitForCall(h, "chat.postEphemeral", "not in a project this bot watches");
    expect(h.writes).toEqual([]);
  });
});

describe("day-2: when the confirmation cannot open", () => {
  it("Slack's trigger ran out: the same change, one Review and confirm… click away", async () => {
    const h = await start();
    const cluster = awsCluster(h, "slow-open");
    let refusals = 0;
    h.bot.fake.on("views.open", (call) =>
      refusals++ === 0
        ? { body: { ok: false, error: "expired_trigger_id" } }
        : { body: { ok: true, view: { ...(call.body.view as object), id: "VREVIEW", hash: "h" } } },
    );
    const sent = await h.bot.command("scale slow-open worker-pool 5", {
      userId: ALICE,
      channelId: CHANNEL,
    });
    const [answer] = await h.bot.responses(sent.responseId);
    const text = JSON.stringify(answer!.body);
    expect(text).toContain("could not open in time");
    expect(text).toContain("Review and confirm…");
    const command = `scale ${cluster.uid} project:${h.project} worker-pool 5`;
    expect(text).toContain(command);
    expect(h.writes).toEqual([]);

    const before = h.bot.fake.callsTo("views.open").length;
    await h.bot.click("palette_run:choice_0", command);
    const [opened] = (await h.bot.fake.waitFor("views.open", before + 1, 3_000)).slice(before);
    expect(JSON.stringify(opened!.body.view)).toContain("3 → *5* nodes");
  });
});

describe("day-2: the bot is not in the channel", () => {
  it("the change's card and a refusal go to the person's DM with the bot", async () => {
    const h = await start();
    awsCluster(h, "lonely");
    let posted = 0;
    const notInChannel = { body: { ok: false, error: "not_in_channel" } };
    h.bot.fake.on("chat.postEphemeral", () => notInChannel);
    h.bot.fake.on("chat.postMessage", (call) =>
      call.body.channel === CHANNEL
        ? notInChannel
        : {
            body: { ok: true, channel: `D${call.body.channel}`, ts: `1700000100.00000${++posted}` },
          },
    );
    const first = await ask(h, "scale lonely worker-pool 4");
    const second = await ask(h, "scale lonely worker-pool 5");
    const toAlice = () =>
      texts(h.bot.fake.callsTo("chat.postMessage")).filter((text) =>
        text.includes(`"channel":"${ALICE}"`),
      );
    await confirm(h, first.view!);
    await waitForCall(h, "chat.postMessage", `"channel":"${ALICE}"`);
    expect(toAlice().join("\n")).toContain("Scaling");
    await confirm(h, second.view!);
    await waitForCall(h, "chat.postMessage", "Not sent");
    expect(toAlice().join("\n")).toContain("Not sent");
    expect(h.writes).toHaveLength(1);
  });
});
