import { afterEach, describe, expect, it } from "vitest";
import { createAccessPolicy } from "../../src/access/policy.ts";
import { ManualClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { createPaletteClient, type PaletteClient } from "../../src/palette/client.ts";
import { createUndiciTransport, type WireRequest } from "../../src/palette/http.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import { ChangeStore } from "../../src/store/changes.ts";
import { FreezeStore } from "../../src/store/freezes.ts";
import { APPROVE_ACTION_ID, CONFIRM_NAME_FIELD } from "../../src/views/change.ts";
import type { RecordedCall } from "../support/fake-slack.ts";
import { type BotHarness, startBot } from "../support/slack-harness.ts";
import { interactiveBody, loadPayload } from "../support/slack-request.ts";

/**
 * The cluster's project, always: with PALETTE_PROJECTS empty (the default) a cluster named by
 * its UID is found in the tenant scope, and only Palette's own word (the cluster's
 * `metadata.annotations.projectUid`) says which project it is in. A freeze of that project must
 * cover it at the command, the confirmation, the approval and the moment before the write, and
 * the change's row, its audit rows and its cards must name the project.
 */

const RESIZE_MS = 4_000;
const CHANNEL = "C111";
const ALICE = "W111";
const BOB = "W222";

interface Harness {
  bot: BotHarness;
  sim: RunningSimulator;
  palette: PaletteClient;
  clock: ManualClock;
  project: string;
  writes: Array<{ method: string; path: string }>;
  /** called before each read the bot sends Palette, when set: a test's way into a race */
  beforeRead?: (request: WireRequest) => Promise<void>;
  close(): Promise<void>;
}

const opened: Harness[] = [];

afterEach(async () => {
  for (const harness of opened.splice(0)) await harness.close();
});

async function start(options: { approvals?: string[] } = {}): Promise<Harness> {
  const clock = new ManualClock(Date.UTC(2026, 10, 25, 12));
  const sim = await startSimulator({
    clock,
    clusters: 12,
    seed: 21,
    lifecycle: { provisioningMs: RESIZE_MS, deletingMs: RESIZE_MS },
  });
  const inner = createUndiciTransport(sim.url);
  const harness = { writes: [] } as unknown as Harness;
  const palette = createPaletteClient({
    baseUrl: sim.url,
    credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
    logger: silentLogger,
    rateLimit: false,
    retries: 0,
    transport: {
      async send(request: WireRequest) {
        if (request.method === "GET") await harness.beforeRead?.(request);
        else if (request.method !== "POST" || request.path.includes("/features/")) {
          harness.writes.push({ method: request.method, path: request.path });
        }
        return inner.send(request);
      },
      close: () => inner.close(),
    },
  });
  const policy = createAccessPolicy({
    allowLaunch: [ALICE],
    allowKubeconfig: [],
    allowChanges: {
      scale: [ALICE, BOB],
      delete: [ALICE, BOB],
      maintenance: [ALICE, BOB],
      backup: [ALICE, BOB],
      logs: [ALICE],
      upgrade: [ALICE, BOB],
    },
    client: { usergroups: { users: { list: async () => ({ ok: true, users: [] }) } } },
    clock,
    logger: silentLogger,
  });
  const bot = await startBot({
    palette,
    clock,
    policy,
    // PALETTE_PROJECTS empty, the default: every lookup is tenant-wide
    projects: [],
    approvals: options.approvals ? { verbs: options.approvals, ttlMs: 30 * 60_000 } : undefined,
    changeSchedule: () => ({ stop() {} }),
  });
  Object.assign(harness, {
    bot,
    sim,
    palette,
    clock,
    project: sim.control.projects()[0]!,
    async close() {
      await bot.close();
      await palette.close();
      await sim.close();
    },
  });
  opened.push(harness);
  return harness;
}

function awsCluster(h: Harness, name: string) {
  return h.sim.control.addCluster({
    name,
    projectUid: h.project,
    provider: "aws",
    pools: [
      { name: "cp-pool", size: 1, isControlPlane: true, instanceType: "m5.large" },
      { name: "worker-pool", size: 3, isControlPlane: false, instanceType: "m5.xlarge" },
    ],
  });
}

let viewSequence = 0;

interface OpenedView {
  id: string;
  callback_id: string;
  private_metadata: string;
  blocks: unknown[];
}

async function ask(h: Harness, text: string, userId = ALICE) {
  const before = h.bot.fake.callsTo("views.open").length;
  const answer = await h.bot.command(text, { userId, channelId: CHANNEL });
  const reply = () =>
    h.bot.fake.callsTo("response").find((call) => call.body._responseId === answer.responseId);
  const deadline = Date.now() + 3_000;
  while (h.bot.fake.callsTo("views.open").length === before && !reply()) {
    if (Date.now() > deadline) throw new Error(`no answer to /palette ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const call = h.bot.fake.callsTo("views.open")[before];
  if (call) {
    const view = call.body.view as OpenedView;
    return { view: { ...view, id: `VP${++viewSequence}` }, reply: undefined };
  }
  return { view: undefined, reply: JSON.stringify(reply()!.body) };
}

async function confirm(h: Harness, view: OpenedView, typedName?: string) {
  const { payload } = loadPayload<{ payload: Record<string, unknown> }>("view_submission.json");
  const values =
    typedName === undefined
      ? {}
      : {
          [CONFIRM_NAME_FIELD]: {
            [CONFIRM_NAME_FIELD]: { type: "plain_text_input", value: typedName },
          },
        };
  const submission = {
    ...payload,
    user: { ...(payload.user as object), id: ALICE },
    view: {
      ...(payload.view as object),
      id: view.id,
      callback_id: view.callback_id,
      private_metadata: view.private_metadata,
      blocks: view.blocks,
      state: { values },
    },
    response_urls: [],
  };
  const answer = await h.bot.post(interactiveBody(submission));
  return { status: answer.status };
}

async function freezeProject(h: Harness, reason = "release") {
  const froze = await h.bot.command(`freeze project:${h.project} until 4h ${reason}`, {
    userId: BOB,
    channelId: CHANNEL,
  });
  const [answer] = await h.bot.responses(froze.responseId);
  expect(JSON.stringify(answer!.body)).toContain("frozen until");
}

function texts(calls: RecordedCall[]): string[] {
  return calls.map((call) => JSON.stringify(call.body));
}

async function waitForCall(h: Harness, method: string, match: string, timeoutMs = 3_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = texts(h.bot.fake.callsTo(method)).find((text) => text.includes(match));
    if (found) return found;
    if (Date.now() > deadline) {
      throw new Error(
        `no ${method} with ${match}; saw ${texts(h.bot.fake.callsTo(method)).join("\n")}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** the submit and the clicks ack first and work after: wait until no change is executing */
async function settle(h: Harness): Promise<void> {
  const store = new ChangeStore(h.bot.db, h.clock);
  for (let i = 0; i < 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    if (i > 5 && !(await store.all()).some((record) => record.status === "executing")) return;
  }
}

/** the change rows of the audit, the cluster and project read from their columns or detail */
async function changeAudit(h: Harness) {
  return (await h.bot.audit.recent(50))
    .filter((row) => row.action === "change")
    .map((row) => {
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
