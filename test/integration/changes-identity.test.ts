import { webApi } from "@slack/bolt";
import { afterEach, describe, expect, it } from "vitest";
import { buildIdentity } from "../../src/app/identity.ts";
import { ManualClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { Secret } from "../../src/secret.ts";
import { slackClientOptions } from "../../src/slack/app.ts";
import { slackEmailOf } from "../../src/slack/user-email.ts";
import { ChangeStore } from "../../src/store/changes.ts";
import { APPROVE_ACTION_ID } from "../../src/views/change.ts";
import {
  allChanges,
  ask as askAs,
  awsCluster,
  closeChangesHarnesses,
  confirmOk,
  type ChangesHarness as Harness,
  linkWithOwnKey,
  nextViewId,
  type OpenedView,
  startChangesHarness,
  texts,
  waitForCall as waitForCallOn,
} from "../support/changes-harness.ts";
import { startFakeSlack } from "../support/fake-slack.ts";

/**
 * Day-2 changes under IDENTITY=linked|strict, end to end: signed Slack requests into the bot, the
 * real Palette client, the simulator (Palette's RBAC per user key) and the fake Slack. A person's
 * refusal is told in their name and privately; under strict, every read of a change is theirs.
 */

const CHANNEL = "C777";
/** on ALLOW_SCALE and ALLOW_MAINTENANCE: the bot's own lists let everyone below ask */
const PERSON = "W701";
/** a second person on ALLOW_SCALE, who approves PERSON's requests */
const APPROVER = "W702";

/** the fake Slacks the tests started, closed after the harnesses */
const fakes: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  await closeChangesHarnesses();
  for (const fake of fakes.splice(0)) await fake.close();
});

async function start(
  mode: "linked" | "strict",
  projects: "first" | "none",
  /** LINK_METHOD=email: PERSON's Slack e-mail (users.info on the fake Slack) */
  email?: string,
  /** APPROVAL_REQUIRED for these verbs; APPROVER may approve */
  approvals?: string[],
): Promise<Harness> {
  const clock = new ManualClock(Date.UTC(2026, 10, 26, 9));
  const fake = await startFakeSlack();
  fakes.push(fake);
  fake.on("users.info", (call) => ({
    body: { ok: true, user: { id: call.body.user, profile: { email } } },
  }));
  const slack = new webApi.WebClient("xoxb-test", slackClientOptions(fake.apiUrl));
  return startChangesHarness({
    clock,
    simulator: { clusters: 8, seed: 25 },
    access: {
      allowChanges: { ...allChanges([PERSON]), scale: [PERSON, APPROVER] },
    },
    projects: (sim) => (projects === "first" ? [sim.control.projects()[0]!] : []),
    approvals,
    bot: (sim, palette) => ({
      fake,
      identity: (db) =>
        buildIdentity(
          {
            mode,
            method: email ? "email" : "key",
            keys: { current: new Secret(Buffer.alloc(32, 25).toString("base64")) },
          },
          {
            db,
            clock,
            logger: silentLogger,
            paletteApiUrl: sim.url,
            ...(email ? { service: palette, emailOf: slackEmailOf(slack) } : {}),
          },
        ),
    }),
  });
}

/** links PERSON to the simulator's user with that e-mail, with a key of their own */
function link(h: Harness, email: string, name: string): Promise<string> {
  return linkWithOwnKey(h, PERSON, { uid: email, name, email });
}

/** `/palette <text>`: the confirmation Slack was asked to open, or the reply at the response_url */
const ask = (h: Harness, text: string) =>
  askAs(h, text, { userId: PERSON, channelId: CHANNEL, viewPrefix: "VI", timeoutMs: 5_000 });

const confirm = (h: Harness, view: OpenedView) => confirmOk(h, view, { userId: PERSON });

const waitForCall = (h: Harness, method: string, match: string, timeoutMs = 5_000) =>
  waitForCallOn(h, method, match, timeoutMs);

/** every text the bot sent the fake Slack (messages, ephemerals, updates, response_url answers) */
function allTexts(h: Harness): string {
  const methods = ["chat.postMessage", "chat.postEphemeral", "chat.update", "response"];
  return methods.flatMap((method) => texts(h.bot.fake.callsTo(method))).join("\n");
}

async function waitForText(h: Harness, match: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = allTexts(h)
      .split("\n")
      .find((text) => text.includes(match));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`nothing said ${match}; saw ${allTexts(h)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** what no person's refusal may say: it is not the bot's account that was refused */
const BOT_BLAME = ["bot's Palette account", "grant its role", "PALETTE_API_KEY"];

describe("IDENTITY=linked: a change refused by Palette is told in the person's name", () => {
  it("a viewer's scale: Palette's 403 is Vera Viewer's, never the bot's role or PALETTE_API_KEY", async () => {
    const h = await start("linked", "first");
    const project = h.sim.control.projects()[0]!;
    awsCluster(h, "viewer-scale", project);
    await link(h, "viewer@example.com", "Vera Viewer");
    const { view } = await ask(h, "scale viewer-scale worker-pool 4");
    expect(view).toBeDefined();
    h.sim.control.clearRequests();
    await confirm(h, view!);
    const card = await waitForCall(h, "chat.postMessage", "failed");
    expect(card).toContain("Palette does not allow Vera Viewer to scale");
    expect(card).toContain(project);
    for (const blame of BOT_BLAME) expect(card).not.toContain(blame);
    // the PUT went with the viewer's key, and Palette refused it
    const put = h.sim.control.requests().filter((r) => r.method === "PUT");
    expect(put).toEqual([expect.objectContaining({ status: 403, caller: "viewer@example.com" })]);
    const [record] = await new ChangeStore(h.bot.db, h.clock).all();
    expect(record!.status).toBe("failed");
    expect(record!.reason).toContain("Vera Viewer");
    // still linked: a 403 is the person's role speaking, not a dead key
    expect(await h.bot.bot.edge.commandDeps.identity!.store.get(PERSON)).toBeDefined();
  });

  it("a 401 on the person's write unlinks their key, and nothing tells them to check PALETTE_API_KEY", async () => {
    const h = await start("linked", "first");
    const project = h.sim.control.projects()[0]!;
    awsCluster(h, "editor-scale", project);
    await link(h, "editor@example.com", "Eddie Editor");
    const { view } = await ask(h, "scale editor-scale worker-pool 4");
    expect(view).toBeDefined();
    // Palette answers the write 401: the key was revoked between the confirmation and the PUT
    h.sim.control.addFault({
      pathPrefix: "/v1/cloudconfigs",
      method: "PUT",
      kind: "status",
      status: 401,
    });
    await confirm(h, view!);
    const card = await waitForCall(h, "chat.postMessage", "failed");
    expect(card).toContain("/palette login");
    for (const blame of BOT_BLAME) expect(card).not.toContain(blame);
    expect(await h.bot.bot.edge.commandDeps.identity!.store.get(PERSON)).toBeUndefined();
  });

  it("an unlinked person's scale is refused privately before any confirmation, Palette asked nothing", async () => {
    const h = await start("linked", "first");
    awsCluster(h, "unlinked-scale", h.sim.control.projects()[0]!);
    h.sim.control.clearRequests();
    const { view, reply, answer } = await ask(h, "scale unlinked-scale worker-pool 4");
    expect(view).toBeUndefined();
    expect(reply).toContain("/palette login");
    expect(answer).toMatchObject({ response_type: "ephemeral" });
    expect(h.bot.fake.callsTo("views.open")).toEqual([]);
    expect(h.bot.fake.callsTo("chat.postMessage")).toEqual([]);
    expect(h.sim.control.requests()).toEqual([]);
    // the pool picker too: no pool is read for someone who cannot act
    const picker = await ask(h, "scale unlinked-scale");
    expect(picker.reply).toContain("/palette login");
    expect(h.sim.control.requests()).toEqual([]);
    expect(await new ChangeStore(h.bot.db, h.clock).all()).toEqual([]);
  });
});

describe("IDENTITY=linked, LINK_METHOD=email", () => {
  it("no Palette user with the person's e-mail: refused privately before any cluster read; no key minted", async () => {
    const h = await start("linked", "first", "nobody@example.com");
    awsCluster(h, "mail-none", h.sim.control.projects()[0]!);
    h.sim.control.clearRequests();
    const { view, reply, answer } = await ask(h, "scale mail-none worker-pool 4");
    expect(view).toBeUndefined();
    expect(reply).toContain("No Palette user has your Slack e-mail address");
    expect(answer).toMatchObject({ response_type: "ephemeral" });
    expect(h.bot.fake.callsTo("chat.postMessage")).toEqual([]);
    // only the look-up of the user by e-mail: no cluster read, no key minted
    const paths = h.sim.control.requests().map((r) => `${r.method} ${r.path}`);
    expect(paths.every((path) => path.startsWith("POST /v1/users"))).toBe(true);
    expect(paths.length).toBeGreaterThan(0);
  });

  it("a viewer found by e-mail: Palette's 403 to the minted key is Vera Viewer's; the key is deleted", async () => {
    const h = await start("linked", "first", "viewer@example.com");
    awsCluster(h, "mail-viewer", h.sim.control.projects()[0]!);
    const { view } = await ask(h, "scale mail-viewer worker-pool 4");
    expect(view).toBeDefined();
    h.sim.control.clearRequests();
    await confirm(h, view!);
    const card = await waitForCall(h, "chat.postMessage", "failed");
    expect(card).toContain("Palette does not allow Vera Viewer to scale");
    for (const blame of BOT_BLAME) expect(card).not.toContain(blame);
    const keys = h.sim.control.requests().filter((r) => r.path.startsWith("/v1/apiKeys"));
    expect(keys.map((r) => r.method)).toEqual(["POST", "DELETE"]);
  });
});

describe("IDENTITY=linked: unlinked after the confirmation opened", () => {
  it("the confirmation is refused to that person alone, before the claim; nothing in the channel, nothing sent", async () => {
    const h = await start("linked", "first");
    awsCluster(h, "gone-link", h.sim.control.projects()[0]!);
    await link(h, "editor@example.com", "Eddie Editor");
    const { view } = await ask(h, "scale gone-link worker-pool 5");
    expect(view).toBeDefined();
    await h.bot.bot.edge.commandDeps.identity!.store.remove(PERSON);
    h.sim.control.clearRequests();
    await confirm(h, view!);
    const told = await waitForCall(h, "chat.postEphemeral", "/palette login");
    expect(told).toContain(PERSON);
    expect(h.bot.fake.callsTo("chat.postMessage")).toEqual([]);
    expect(h.sim.control.requests()).toEqual([]);
    expect(await new ChangeStore(h.bot.db, h.clock).all()).toEqual([]);
  });
});

describe("IDENTITY=linked: an approval of someone who unlinked meanwhile", () => {
  it("is not sent, and the approver is told it is the requester who has no Palette user now", async () => {
    const h = await start("linked", "first", undefined, ["scale"]);
    awsCluster(h, "approve-gone", h.sim.control.projects()[0]!);
    await link(h, "editor@example.com", "Eddie Editor");
    const { view } = await ask(h, "scale approve-gone worker-pool 5");
    await confirm(h, view!);
    const store = new ChangeStore(h.bot.db, h.clock);
    const deadline = Date.now() + 5_000;
    while ((await store.all()).length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const [request] = await store.all();
    expect(request!.status).toBe("awaiting_approval");
    await h.bot.bot.edge.commandDeps.identity!.store.remove(PERSON);
    h.sim.control.clearRequests();
    await h.bot.click(APPROVE_ACTION_ID, String(request!.id), { userId: APPROVER });
    const told = await waitForText(h, "no Palette user is linked to them");
    expect(told).toContain(`<@${PERSON}>`);
    const all = allTexts(h);
    expect(all).not.toContain("your Slack account is not linked");
    expect(h.sim.control.requests().filter((r) => r.method !== "GET")).toEqual([]);
    expect((await store.get(request!.id))!.status).toBe("failed");
  });
});

describe("IDENTITY=strict: a change's reads are the person's", () => {
  it("cordon <cluster> outside the person's roles lists no node; inside, every read is theirs", async () => {
    const h = await start("strict", "none");
    const [first, second] = h.sim.control.projects() as [string, string];
    const outside = awsCluster(h, "not-solos", second);
    const inside = awsCluster(h, "solos-own", first);
    await link(h, "solo@example.com", "Sol One-Project");
    const machineNames = async (clusterUid: string, projectUid: string) => {
      const cluster = await h.palette.getCluster(clusterUid, { projectUid });
      const ref = cluster.spec!.cloudConfigRef!;
      const names: string[] = [];
      for (const pool of ["cp-pool", "worker-pool"]) {
        const machines = await h.palette.listMachines(ref.kind!, ref.uid!, pool, { projectUid });
        names.push(...machines.map((m) => m.metadata!.name!));
      }
      return names;
    };
    const hidden = await machineNames(outside.uid, second);
    expect(hidden.length).toBeGreaterThan(0);

    // by name the person's search does not find it; by UID or in its project Palette refuses them
    const told = [
      ["not-solos", "No cluster named"],
      [outside.uid, "Palette does not allow Sol One-Project to see this cluster"],
      [
        `not-solos project:${second}`,
        `Palette does not allow Sol One-Project to see this cluster in project`,
      ],
    ] as const;
    for (const [ref, answer] of told) {
      h.sim.control.clearRequests();
      const { view, reply } = await ask(h, `cordon ${ref}`);
      expect(reply).toContain(answer);
      expect(view).toBeUndefined();
      for (const name of hidden) expect(reply).not.toContain(name);
      for (const blame of BOT_BLAME) expect(reply).not.toContain(blame);
      const callers = new Set(h.sim.control.requests().map((r) => r.caller ?? "refused"));
      expect([...callers].every((c) => c === "solo@example.com" || c === "refused")).toBe(true);
    }
    const named = await ask(h, `cordon not-solos ${hidden[hidden.length - 1]!}`);
    expect(named.view).toBeUndefined();
    for (const name of hidden.slice(0, -1)) expect(named.reply).not.toContain(name);

    // a cluster the person's roles reach: the nodes are listed, read with their key alone
    const visible = await machineNames(inside.uid, first);
    h.sim.control.clearRequests();
    const own = await ask(h, "cordon solos-own");
    expect(own.reply).toContain(visible.find((n) => n.includes("worker")) ?? visible[0]!);
    const callers = new Set(h.sim.control.requests().map((r) => r.caller));
    expect(callers).toEqual(new Set(["solo@example.com"]));
  });

  it("a node picked by its button is confirmed and sent with the person's key alone, re-read included", async () => {
    const h = await start("strict", "none");
    const [first] = h.sim.control.projects() as [string];
    awsCluster(h, "solos-pick", first);
    await link(h, "solo@example.com", "Sol One-Project");
    h.sim.control.clearRequests();
    const picker = await ask(h, "cordon solos-pick");
    const buttons = (picker.answer!.blocks as Array<{ type: string; elements?: unknown[] }>)
      .flatMap((block) => (block.type === "actions" ? (block.elements ?? []) : []))
      .map((element) => element as { action_id: string; value: string });
    const button = buttons.find((b) => b.value.includes("worker-pool"))!;
    expect(button).toBeDefined();
    const before = h.bot.fake.callsTo("views.open").length;
    await h.bot.click(button.action_id, button.value, { userId: PERSON });
    const [opened] = (await h.bot.fake.waitFor("views.open", before + 1)).slice(before);
    const view = { ...(opened!.body.view as OpenedView), id: nextViewId("VI") };
    await confirm(h, view);
    await waitForCall(h, "chat.postMessage", "Cordoning");
    const requests = h.sim.control.requests();
    expect(requests.filter((r) => r.method === "PUT")).toEqual([
      expect.objectContaining({ status: 204, caller: "solo@example.com" }),
    ]);
    expect(new Set(requests.map((r) => r.caller))).toEqual(new Set(["solo@example.com"]));
  });

  it("an unlinked person's cordon is refused before any Palette read", async () => {
    const h = await start("strict", "none");
    awsCluster(h, "strict-unlinked", h.sim.control.projects()[0]!);
    h.sim.control.clearRequests();
    const { view, reply } = await ask(h, "cordon strict-unlinked");
    expect(view).toBeUndefined();
    expect(reply).toContain("/palette login");
    expect(h.sim.control.requests()).toEqual([]);
  });
});
