import type { App } from "@slack/bolt";
import type { CommandDeps } from "../../commands/types.ts";
import { type LookupSource, loadChoices } from "../../launch/options.ts";
import { describeForUser } from "../../palette/errors.ts";
import { providerSpec } from "../../palette/providers/index.ts";
import { PROVIDERS } from "../../palette/providers-list.ts";
import {
  decodeLaunchMetadata,
  LAUNCH_CALLBACK_ID,
  option,
  PROJECT_FIELD,
  providerOf,
  readFormState,
  stateValuesSchema,
} from "../../views/launch-modal.ts";

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
 * `block_suggestion`: the options of the modal's external selects, filtered by the typed text
 * and by the provider and project chosen so far. Palette errors become one disabled-looking
 * option that says what went wrong, rather than an empty list.
 */
export function registerLaunchOptions(app: App, deps: CommandDeps): void {
  const fields = lookupFields();
  const ids = [...fields.keys()].map((id) => id.replace(/[^A-Za-z0-9_]/g, ""));
  const actionIds = new RegExp(`^(${ids.join("|")})$`);
  app.options<"block_suggestion">(
    { type: "block_suggestion", action_id: actionIds },
    async ({ ack, body }) => {
      const view = body.view;
      if (!view || view.callback_id !== LAUNCH_CALLBACK_ID) return;
      const source = fields.get(body.action_id);
      if (!source) {
        await ack({ options: [] });
        return;
      }
      const metadata = decodeLaunchMetadata(view.private_metadata);
      const values = stateValuesSchema.safeParse(view.state?.values ?? {});
      const state = readFormState(values.success ? values.data : {});
      const project = state.raw[PROJECT_FIELD];
      const clusterGroup = state.raw.clusterGroup;
      try {
        const choices = await loadChoices(deps.palette, source, body.value ?? "", {
          provider: providerOf(state, metadata),
          projectUid: typeof project === "string" ? project : metadata?.project,
          clusterGroup: typeof clusterGroup === "string" ? clusterGroup : undefined,
        });
        await ack({ options: choices.map((c) => option(c.value, c.label)) });
      } catch (error) {
        deps.logger.warn({ err: String(error), source }, "launch options failed");
        await ack({ options: [option("__error__", `⚠ ${describeForUser(error)}`)] });
      }
    },
  );
}
