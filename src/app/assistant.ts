import { type Assistant, type AssistantObserver, createAssistant } from "../assistant/ask.ts";
import { assistantModel } from "../assistant/provider.ts";
import type { AssistantConfig } from "../config.ts";
import { dispatch as registryDispatch } from "../registry/dispatch.ts";
import { AssistantTurnStore } from "../store/assistant-turns.ts";
import type { CommandDeps } from "../verb-kit/types.ts";

/**
 * The assistant from ASSISTANT_PROVIDER and friends, or undefined when it is unset: then no
 * surface offers it and no request goes to any model.
 */
export function buildAssistant(input: {
  config: AssistantConfig | undefined;
  deps: CommandDeps;
  observer?: AssistantObserver;
  /** the dispatcher the typed verbs go through (the bot's counts its commands) */
  dispatch?: (
    text: string,
    ctx: Parameters<typeof registryDispatch>[1],
  ) => ReturnType<typeof registryDispatch>;
}): Assistant | undefined {
  const { config, deps } = input;
  if (!config) return undefined;
  return createAssistant({
    config,
    model: assistantModel(config),
    dispatch: input.dispatch ?? registryDispatch,
    commandDeps: deps,
    turns: new AssistantTurnStore(deps.db, deps.clock, config.historyDays * 86_400_000),
    // the last poll's names: a real cluster the model was not shown is caught by name too
    knownNames: async () =>
      (await deps.db.all<{ name: string }>("SELECT DISTINCT name FROM notify_snapshots")).map(
        (row) => row.name,
      ),
    observer: input.observer,
  });
}
