import type { ModalView } from "@slack/types";
import type { AccessPolicy } from "../../src/access/types.ts";
import { buildIdentity } from "../../src/app/identity.ts";
import { ManualClock } from "../../src/clock.ts";
import { silentLogger } from "../../src/log.ts";
import { createPaletteClient, type PaletteClient } from "../../src/palette/client.ts";
import { providerSpec } from "../../src/palette/providers/index.ts";
import type { Provider } from "../../src/palette/providers-list.ts";
import { Secret } from "../../src/secret.ts";
import { startSimulator } from "../../src/simulator/server.ts";
import type { RunningSimulator } from "../../src/simulator/types.ts";
import type { LaunchRuntime } from "../../src/slack/launch-runtime.ts";
import { type LaunchRecord, LaunchStore } from "../../src/store/launches.ts";
import type { SqlDb } from "../../src/store/sql.ts";
import type { RecordedCall } from "./fake-slack.ts";
import { type BotHarness, startBot } from "./slack-harness.ts";
import { interactiveBody, loadPayload } from "./slack-request.ts";

/**
 * The real bot (Slack edge + launch listeners) in front of the fake Slack, talking through the
 * real Palette client to the real simulator, whose clock the test moves by hand.
 */

export const PENDING_MS = 1_000;
export const PROVISIONING_MS = 4_000;

export interface LaunchHarness {
  bot: BotHarness;
  sim: RunningSimulator;
  palette: PaletteClient;
  clock: ManualClock;
  launch: LaunchRuntime;
  project: string;
  /** `/palette launch` and the view Slack was asked to open */
  openModal(userId?: string): Promise<{ view: OpenView; status: number }>;
  /** the provider select changes: returns the view sent to views.update */
  pickProvider(view: OpenView, provider: Provider, values?: StateValues): Promise<OpenView>;
  /** a block_suggestion for one field; returns the options Slack would show */
  suggest(
    view: OpenView,
    actionId: string,
    query: string,
    values?: StateValues,
  ): Promise<Array<{ value: string; text: string }>>;
  /** the view_submission; returns the parsed answer ({} when the modal closes) */
  submit(view: OpenView, values: StateValues, userId?: string): Promise<SubmitAnswer>;
  /** waits until the launch of `name` has its card posted; returns the stored launch */
  waitForCard(name: string): Promise<LaunchRecord>;
  close(): Promise<void>;
}

export type StateValues = Record<string, Record<string, Record<string, unknown>>>;

export interface OpenView extends ModalView {
  id: string;
  hash: string;
}

export interface SubmitAnswer {
  status: number;
  body: { response_action?: string; errors?: Record<string, string>; view?: ModalView };
}

let viewSequence = 0;

function modalPayloadBase(userId: string): Record<string, unknown> {
  const { payload } = loadPayload<{ payload: Record<string, unknown> }>("view_submission.json");
  return {
    team: payload.team,
    user: { ...(payload.user as object), id: userId },
    api_app_id: payload.api_app_id,
    token: payload.token,
  };
}

function viewForPayload(view: OpenView, values: StateValues): Record<string, unknown> {
  const { payload } = loadPayload<{ payload: { view: Record<string, unknown> } }>(
    "view_submission.json",
  );
  return {
    ...payload.view,
    id: view.id,
    hash: view.hash,
    callback_id: view.callback_id,
    private_metadata: view.private_metadata,
    blocks: view.blocks,
    title: view.title,
    state: { values },
  };
}

export async function startLaunchHarness(
  options: {
    policy?: AccessPolicy;
    projects?: "one" | "none";
    optionsBudgetMs?: number;
    /** IDENTITY=linked, with a fixed IDENTITY_KEY */
    linked?: boolean;
  } = {},
): Promise<LaunchHarness> {
  const clock = new ManualClock(Date.UTC(2026, 2, 1));
  const sim = await startSimulator({
    clock,
    clusters: 20,
    seed: 7,
    lifecycle: { pendingMs: PENDING_MS, provisioningMs: PROVISIONING_MS },
  });
  const palette = createPaletteClient({
    baseUrl: sim.url,
    credentials: { kind: "apiKey", apiKey: new Secret(sim.credentials.apiKey) },
    logger: silentLogger,
    rateLimit: false,
    retries: 0,
  });
  const project = sim.control.projects()[0]!;
  const bot = await startBot({
    palette,
    clock,
    policy: options.policy,
    projects: options.projects === "none" ? [] : [project],
    optionsBudgetMs: options.optionsBudgetMs,
    ...(options.linked
      ? {
          identity: (db: SqlDb) =>
            buildIdentity(
              {
                mode: "linked",
                method: "key",
                keys: { current: new Secret(Buffer.alloc(32, 3).toString("base64")) },
              },
              { db, clock, logger: silentLogger, paletteApiUrl: sim.url },
            ),
        }
      : {}),
  });

  // the fake Slack hands out a fresh view id/hash per views.open/update
  bot.fake.on("views.open", (call) => ({
    body: {
      ok: true,
      view: {
        ...(call.body.view as object),
        id: `VL${++viewSequence}`,
        hash: `hash-${viewSequence}`,
      },
    },
  }));
  bot.fake.on("views.update", (call) => ({
    body: {
      ok: true,
      view: {
        ...(call.body.view as object),
        id: call.body.view_id,
        hash: `hash-u${++viewSequence}`,
      },
    },
  }));

  const lastView = (call: RecordedCall, id: string, hash: string): OpenView => ({
    ...(call.body.view as ModalView),
    id,
    hash,
  });

  const harness: LaunchHarness = {
    bot,
    sim,
    palette,
    clock,
    launch: bot.bot.edge.launch,
    project,
    async openModal(userId = "W111") {
      const before = bot.fake.callsTo("views.open").length;
      const answer = await bot.command("launch", { userId, channelId: "C111" });
      const calls = await bot.fake.waitFor("views.open", before + 1, 3_000);
      const call = calls[before]!;
      return {
        view: lastView(call, `VL${viewSequence}`, `hash-${viewSequence}`),
        status: answer.status,
      };
    },
    async pickProvider(view, provider, values = {}) {
      const before = bot.fake.callsTo("views.update").length;
      const label = providerSpec(provider).label;
      const selected = { text: { type: "plain_text", text: label }, value: provider };
      const state: StateValues = {
        ...values,
        provider: { provider: { type: "static_select", selected_option: selected } },
      };
      const payload = {
        type: "block_actions",
        ...modalPayloadBase("W111"),
        container: { type: "view", view_id: view.id },
        trigger_id: "333.444.trigger",
        view: viewForPayload(view, state),
        actions: [
          {
            type: "static_select",
            action_id: "provider",
            block_id: "provider",
            selected_option: selected,
            action_ts: "1700000000.000100",
          },
        ],
      };
      const answer = await bot.post(interactiveBody(payload));
      if (answer.status !== 200) throw new Error(`block_actions answered ${answer.status}`);
      const calls = await bot.fake.waitFor("views.update", before + 1, 3_000);
      const call = calls[before]!;
      if (call.body.hash !== view.hash) throw new Error("views.update without the view hash");
      return lastView(call, view.id, `hash-u${viewSequence}`);
    },
    async suggest(view, actionId, query, values = {}) {
      const { payload } = loadPayload<{ payload: Record<string, unknown> }>(
        "block_suggestion.external_select_in_modal.json",
      );
      const request = {
        ...payload,
        action_id: actionId,
        block_id: actionId,
        value: query,
        container: { type: "view", view_id: view.id },
        view: viewForPayload(view, values),
      };
      const answer = await bot.post(interactiveBody(request));
      if (answer.status !== 200) throw new Error(`block_suggestion answered ${answer.status}`);
      const parsed = JSON.parse(answer.text) as {
        options: Array<{ value: string; text: { text: string } }>;
      };
      return parsed.options.map((o) => ({ value: o.value, text: o.text.text }));
    },
    async submit(view, values, userId = "W111") {
      const payload = {
        type: "view_submission",
        ...modalPayloadBase(userId),
        trigger_id: "555.666.trigger",
        view: viewForPayload(view, values),
        response_urls: [],
      };
      const answer = await bot.post(interactiveBody(payload));
      return {
        status: answer.status,
        body: answer.text ? (JSON.parse(answer.text) as SubmitAnswer["body"]) : {},
      };
    },
    async waitForCard(name) {
      const store = new LaunchStore(bot.db, clock);
      const deadline = Date.now() + 3_000;
      for (;;) {
        const record = (await store.all()).find((r) => r.name === name && r.cardTs);
        if (record) return record;
        if (Date.now() > deadline) throw new Error(`no card for ${name}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async close() {
      await bot.close();
      await palette.close();
      await sim.close();
    },
  };
  return harness;
}

/** Slack's state.values for the provider form, from raw answers (ids as block and action ids). */
export function stateFor(
  provider: Provider,
  project: string,
  answers: Record<string, string | string[] | undefined>,
  labels: Record<string, string> = {},
): StateValues {
  const spec = providerSpec(provider);
  const option = (value: string) => ({
    text: { type: "plain_text", text: labels[value] ?? value },
    value,
  });
  const values: StateValues = {
    project: { project: { type: "static_select", selected_option: option(project) } },
    provider: { provider: { type: "static_select", selected_option: option(provider) } },
  };
  for (const field of spec.fields) {
    const answer = answers[field.id];
    let element: Record<string, unknown>;
    switch (field.kind) {
      case "select":
        element = {
          type: "static_select",
          selected_option: typeof answer === "string" ? option(answer) : null,
        };
        break;
      case "external":
        element = {
          type: "external_select",
          selected_option: typeof answer === "string" ? option(answer) : null,
        };
        break;
      case "multi_external":
        element = {
          type: "multi_external_select",
          selected_options: (Array.isArray(answer) ? answer : []).map(option),
        };
        break;
      case "number":
        element = { type: "number_input", value: typeof answer === "string" ? answer : null };
        break;
      default:
        element = { type: "plain_text_input", value: typeof answer === "string" ? answer : null };
    }
    values[field.id] = { [field.id]: element };
  }
  return values;
}
