import type { Assistant, AssistantObserver } from "../assistant/ask.ts";
import type { AssistantConfig } from "../config.ts";
import { dispatch as registryDispatch } from "../registry/dispatch.ts";
import type { CommandDeps } from "../verb-kit/types.ts";

/**
 * The assistant from ASSISTANT_PROVIDER and friends, or undefined when it is unset: then no
 * surface offers it and no request goes to any model.
 *
 * The assistant's modules are imported here, after the check, not at the top: they bring the AI
 * SDK (`ai` and its providers, some MB of heap), which a bot without the assistant never needs
 * (issue 31 item 14: the bot's memory budget at 50,000 clusters).
 */
export async function buildAssistant(input: {
  config: AssistantConfig | undefined;
  deps: CommandDeps;
  observer?: AssistantObserver;
  /** the dispatcher the typed verbs go through (the bot's counts its commands) */
  dispatch?: (
    text: string,
    ctx: Parameters<typeof registryDispatch>[1],
  ) => ReturnType<typeof registryDispatch>;
}): Promise<Assistant | undefined> {
  const { config, deps } = input;
  if (!config) return undefined;
  const [
    { createAssistant },
    { assistantModel },
    { AssistantTurnStore },
    { knownNamesByPoll },
    { AssistantQuestionLimit },
  ] = await Promise.all([
    import("../assistant/ask.ts"),
    import("../assistant/provider.ts"),
    import("../store/assistant-turns.ts"),
    import("../assistant/known-names.ts"),
    import("../store/assistant-questions.ts"),
  ]);
  return createAssistant({
    config,
    model: assistantModel(config),
    dispatch: input.dispatch ?? registryDispatch,
    commandDeps: deps,
    turns: new AssistantTurnStore(deps.db, deps.clock, config.historyDays * 86_400_000),
    // ASSISTANT_PER_USER_PER_HOUR counted in the shared store: it holds across replicas
    hourly: new AssistantQuestionLimit(deps.db),
    // the last poll's names, a Set built once per poll: a real cluster the model was not shown
    // is caught by name too
    knownNames: knownNamesByPoll({
      stamp: async () => {
        const row = await deps.db.get<{ n: number; latest: string | null }>(
          "SELECT COUNT(*) AS n, MAX(updated_at) AS latest FROM notify_snapshots",
        );
        return `${row?.n ?? 0}:${row?.latest ?? ""}`;
      },
      // in the primary key's order, a page at a time (the row value compares as both stores do)
      page: async (after, limit) =>
        (
          await deps.db.all<{ project: string; cluster_uid: string; name: string }>(
            after
              ? "SELECT project, cluster_uid, name FROM notify_snapshots WHERE (project, cluster_uid) > (?, ?) ORDER BY project, cluster_uid LIMIT ?"
              : "SELECT project, cluster_uid, name FROM notify_snapshots ORDER BY project, cluster_uid LIMIT ?",
            after ? [after[0], after[1], limit] : [limit],
          )
        ).map((row) => ({ key: [row.project, row.cluster_uid] as const, name: row.name })),
    }),
    observer: input.observer,
  });
}
