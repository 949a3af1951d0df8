import { afterEach, describe, expect, it } from "vitest";
import { ChangeStore } from "../../src/store/changes.ts";
import { FreezeStore } from "../../src/store/freezes.ts";
import { APPROVE_ACTION_ID } from "../../src/views/change.ts";
import {
  allChanges,
  ask as askAs,
  awsCluster,
  CHANNEL,
  changeAuditRows,
  changeOrFeature,
  closeChangesHarnesses,
  type ChangesHarness as Harness,
  type OpenedView,
  settle,
  startChangesHarness,
  submitConfirmation,
  waitForCall,
} from "../support/changes-harness.ts";

/**
 * The cluster's project, always: with PALETTE_PROJECTS empty (the default) a cluster named by
 * its UID is found in the tenant scope, and only Palette's own word (the cluster's
 * `metadata.annotations.projectUid`) says which project it is in. A freeze of that project must
 * cover it at the command, the confirmation, the approval and the moment before the write, and
 * the change's row, its audit rows and its cards must name the project.
 */

const ALICE = "W111";
const BOB = "W222";

afterEach(closeChangesHarnesses);

function start(options: { approvals?: string[] } = {}): Promise<Harness> {
  return startChangesHarness({
    isWrite: changeOrFeature,
    access: {
      allowLaunch: [ALICE],
      allowChanges: allChanges([ALICE, BOB], [ALICE]),
    },
    // PALETTE_PROJECTS empty, the default: every lookup is tenant-wide
    projects: () => [],
    approvals: options.approvals,
  });
}

const ask = (h: Harness, text: string, userId = ALICE) =>
  askAs(h, text, { userId, viewPrefix: "VP" });

async function confirm(h: Harness, view: OpenedView, typedName?: string) {
  const { status } = await submitConfirmation(h, view, { userId: ALICE, typedName });
  return { status };
}

async function freezeProject(h: Harness, reason = "release") {
  const froze = await h.bot.command(`freeze project:${h.project} until 4h ${reason}`, {
    userId: BOB,
    channelId: CHANNEL,
  });
  const [answer] = await h.bot.responses(froze.responseId);
  expect(JSON.stringify(answer!.body)).toContain("frozen until");
}

/** the change rows of the audit, the cluster and project read from their columns or detail */
async function changeAudit(h: Harness) {
  return (await changeAuditRows(h, 50)).map((row) => {
    const detail = JSON.parse(row.detail ?? "{}") as Record<string, unknown>;
    const columns = row as { clusterUid?: string; projectUid?: string; changeId?: number };
    return {
      ...row,
      parsed: {
        ...detail,
        clusterUid: columns.clusterUid ?? detail.clusterUid,
        projectUid: columns.projectUid ?? detail.projectUid,
        changeId: columns.changeId ?? detail.changeId,
      },
    };
  });
}

/** the `changes` row's own columns, as a reviewer would query them */
async function changeRow(h: Harness, id: number) {
  return h.bot.db.get<{ cluster_uid: string; project_uid: string }>(
    "SELECT cluster_uid, project_uid FROM changes WHERE id = ?",
    [id],
  );
}

describe("day-2: a project freeze covers a cluster named by UID (PALETTE_PROJECTS empty)", () => {
  it("refuses `scale <uid>` at the command, with and without the pool, and audits the refusal with the project", async () => {
    const h = await start();
    const cluster = awsCluster(h, "uid-scale");
    await freezeProject(h, "release train");

    const full = await ask(h, `scale ${cluster.uid} worker-pool 4`);
    expect(full.view).toBeUndefined();
    expect(full.reply).toContain("release train");

    const picking = await ask(h, `scale ${cluster.uid}`);
    expect(picking.view).toBeUndefined();
    expect(picking.reply).toContain("release train");
    expect(picking.reply).not.toContain("worker-pool →");

    expect(h.writes).toEqual([]);
    const denied = (await changeAudit(h)).filter((row) => row.outcome === "denied");
    expect(denied.length).toBeGreaterThanOrEqual(2);
    for (const row of denied) {
      expect(row.parsed).toMatchObject({ freezeId: expect.any(Number), projectUid: h.project });
    }
  });

  it("refuses `delete <uid>` at the command, nothing sent", async () => {
    const h = await start();
    const cluster = awsCluster(h, "uid-delete");
    await freezeProject(h);
    const { view, reply } = await ask(h, `delete ${cluster.uid}`);
    expect(view).toBeUndefined();
    expect(reply).toContain("frozen by");
    expect(h.writes).toEqual([]);
    expect(h.sim.control.clusters().find((c) => c.uid === cluster.uid)).toBeDefined();
  });

  it("refuses a confirmation opened by UID before the freeze", async () => {
    const h = await start();
    const cluster = awsCluster(h, "uid-open");
    const { view } = await ask(h, `scale ${cluster.uid} worker-pool 4`);
    expect(view).toBeDefined();
    await freezeProject(h, "change window closed");

    await confirm(h, view!);
    const told = await waitForCall(h, "chat.postEphemeral", "frozen by");
    expect(told).toContain("change window closed");
    await settle(h);
    expect(h.writes).toEqual([]);
    expect(await new ChangeStore(h.bot.db, h.clock).all()).toEqual([]);
  });

  it("refuses an approval of a `delete <uid>` once its project is frozen", async () => {
    const h = await start({ approvals: ["delete"] });
    const cluster = awsCluster(h, "uid-approve");
    const { view } = await ask(h, `delete ${cluster.uid}`);
    await confirm(h, view!, "uid-approve");
    await waitForCall(h, "chat.postMessage", "Change needs approval");
    const [record] = await new ChangeStore(h.bot.db, h.clock).all();
    expect(record!.status).toBe("awaiting_approval");
    expect(await changeRow(h, record!.id)).toMatchObject({ project_uid: h.project });

    await freezeProject(h, "audit week");
    await h.bot.click(APPROVE_ACTION_ID, String(record!.id), { userId: BOB });
    const told = await waitForCall(h, "chat.postEphemeral", "frozen by");
    expect(told).toContain("audit week");
    await settle(h);
    expect(h.writes).toEqual([]);
    const [after] = await new ChangeStore(h.bot.db, h.clock).all();
    expect(after!.status).toBe("awaiting_approval");
  });

  it("a freeze that lands after the confirmation's checks stops the write: the change ends 'not sent: frozen', never left executing", async () => {
    const h = await start();
    const cluster = awsCluster(h, "uid-race");
    const { view } = await ask(h, `scale ${cluster.uid} worker-pool 4`);
    expect(view).toBeDefined();
    // the confirmation's re-read of Palette is under way when someone freezes the project:
    // the permission and freeze checks have passed, the write has not been sent
    let armed = true;
    h.beforeRead = async () => {
      if (!armed) return;
      armed = false;
      await new FreezeStore(h.bot.db, h.clock).add({
        scope: { kind: "project", uid: h.project },
        untilMs: h.clock.now() + 4 * 3_600_000,
        reason: "incident",
        frozenBy: BOB,
      });
    };
    await confirm(h, view!);
    await settle(h);
    expect(armed).toBe(false);
    expect(h.writes).toEqual([]);
    const [record] = await new ChangeStore(h.bot.db, h.clock).all();
    expect(record!.status).toBe("failed");
    expect(record!.reason).toMatch(/^Not sent: frozen/);
    const card = await waitForCall(h, "chat.postMessage", "Not sent: frozen");
    expect(card).toContain("uid-race");
    // the not-sent end is audited with the freeze, the change and its project
    const ended = (await changeAudit(h)).find((row) => row.outcome === "denied");
    expect(ended?.parsed).toMatchObject({
      freezeId: expect.any(Number),
      changeId: record!.id,
      projectUid: h.project,
    });
  });
});

describe("day-2: the cluster's project on a change found by UID", () => {
  it("the changes row, its audit rows and the card's Actions… carry the project Palette reports", async () => {
    const h = await start();
    const cluster = awsCluster(h, "uid-carry");

    const card = await h.bot.command(`cluster ${cluster.uid}`, {
      userId: ALICE,
      channelId: CHANNEL,
    });
    const [reply] = await h.bot.responses(card.responseId);
    const menu = (
      reply!.body.blocks as Array<{ type: string; elements?: Array<Record<string, unknown>> }>
    )
      .flatMap((block) => block.elements ?? [])
      .find((element) => element.type === "overflow")!;
    const options = menu.options as Array<{ value: string; text: { text: string } }>;
    expect(options.length).toBeGreaterThan(0);
    for (const option of options) expect(option.value).toContain(`project:${h.project}`);

    const { view } = await ask(h, `scale ${cluster.uid} worker-pool 4`);
    await confirm(h, view!);
    await waitForCall(h, "chat.postMessage", "Scaling");
    await settle(h);
    expect(h.writes.filter((write) => write.method === "PUT")).toHaveLength(1);

    const [record] = await new ChangeStore(h.bot.db, h.clock).all();
    expect(await changeRow(h, record!.id)).toEqual({
      cluster_uid: cluster.uid,
      project_uid: h.project,
    });
    expect(record!.plan.cluster.projectUid).toBe(h.project);
    // the request's row and Palette's answer's row (whatever the audit calls the answer)
    const rows = await changeAudit(h);
    expect(rows.map((row) => row.outcome)).toContain("created");
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const row of rows) {
      expect(row.parsed).toMatchObject({ clusterUid: cluster.uid, projectUid: h.project });
    }
  });
});
