import type { App } from "@slack/bolt";
import { type LookupSource, loadChoices } from "../../../launch/options.ts";
import { describeForUser } from "../../../palette/errors.ts";
import type { Choice } from "../../../palette/providers/index.ts";
import { providerSpec } from "../../../palette/providers/index.ts";
import { PROVIDERS } from "../../../palette/providers-list.ts";
import type { CommandDeps } from "../../../verb-kit/types.ts";
import {
  LAUNCH_CALLBACK_ID,
  option,
  PROJECT_FIELD,
  providerOf,
} from "../../../views/launch-modal.ts";
import { ackWithin } from "../../ack.ts";
import { readLaunchView } from "../../launch-modal-state.ts";

/** field id → lookup source, for every look-up field of every provider form */
export function lookupFields(): Map<string, LookupSource> {
  const map = new Map<string, LookupSource>([[PROJECT_FIELD, "project"]]);
  for (const provider of PROVIDERS) {
    for (const field of providerSpec(provider).fields) {
      if (field.source) map.set(field.id, field.source);
    }
  }
  return map;
}

/**
 * Slack drops an options answer after 3 s and shows the user nothing; answer within this. The
 * Palette client may retry with backoff or honour a long Retry-After, so a look-up can take longer.
 */
export const OPTIONS_BUDGET_MS = 2_500;

/** the one option shown when Palette did not answer within the budget; not a real choice */
export const SLOW_OPTION_VALUE = "__slow__";
export const SLOW_OPTION_TEXT = "⏳ Palette is slow to answer; type again to retry.";

type Loaded = { kind: "ok"; choices: Choice[] } | { kind: "error"; error: unknown };

/**
 * `block_suggestion`: the options of the modal's external selects, filtered by the typed text
 * and by the provider and project chosen so far. Palette errors become one disabled-looking
 * option that says what went wrong, rather than an empty list.
 */
export function registerLaunchOptions(
  app: App,
  deps: CommandDeps,
  budgetMs = OPTIONS_BUDGET_MS,
): void {
  const fields = lookupFields();
  const ids = [...fields.keys()].map((id) => id.replace(/[^A-Za-z0-9_]/g, ""));
  const actionIds = new RegExp(`^(${ids.join("|")})$`);
  app.options<"block_suggestion">(
    { type: "block_suggestion", action_id: actionIds },
    async ({ ack, body }) => {
      const view = body.view;
      const source = fields.get(body.action_id);
      if (!view || view.callback_id !== LAUNCH_CALLBACK_ID || !source) {
        // not ours to fill, but an unanswered request makes Slack show an error
        await ack({ options: [] });
        return;
      }
      const { metadata, state } = readLaunchView(view, body.user.id);
      const project = state.raw[PROJECT_FIELD];
      const clusterGroup = state.raw.clusterGroup;
      // never rejects, so a load that outlives the budget finishes quietly in the background
      const load: Promise<Loaded> = loadChoices(deps.palette, source, body.value ?? "", {
        provider: providerOf(state, metadata),
        projectUid: typeof project === "string" ? project : metadata?.project,
        clusterGroup: typeof clusterGroup === "string" ? clusterGroup : undefined,
      }).then(
        (choices): Loaded => ({ kind: "ok", choices }),
        (error: unknown): Loaded => {
          deps.logger.warn({ err: String(error), source }, "launch options failed");
          return { kind: "error", error };
        },
      );
      const first = await ackWithin(budgetMs, load, () => "slow" as const);
      if (first === "slow") {
        deps.logger.warn({ source, budgetMs }, "launch options: Palette slower than the budget");
        await ack({ options: [option(SLOW_OPTION_VALUE, SLOW_OPTION_TEXT)] });
      } else if (first.kind === "ok") {
        await ack({ options: first.choices.map((c) => option(c.value, c.label)) });
      } else {
        await ack({ options: [option("__error__", `⚠ ${describeForUser(first.error)}`)] });
      }
    },
  );
}
