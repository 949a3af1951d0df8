import type { webApi } from "@slack/bolt";
import type { CommandDeps, Requester } from "../verb-kit/types.ts";
import { launchView, type ProjectChoice } from "../views/launch-modal.ts";
import { ackWithin } from "./ack.ts";

export interface LaunchModalContext {
  requester: Requester;
  deps: CommandDeps;
}

/** how long the project names may take before the modal opens with bare UIDs */
const NAMES_BUDGET_MS = 800;

/**
 * PALETTE_PROJECTS with their names when Palette answers quickly; trigger_ids die after 3 s,
 * so a slow answer never holds the modal back. No configured projects: the select searches.
 */
export async function projectChoices(deps: CommandDeps): Promise<ProjectChoice[]> {
  if (deps.projects.length === 0) return [];
  const names = await ackWithin(
    NAMES_BUDGET_MS,
    deps.palette.listProjects().then(
      (list) => new Map(list.map((p) => [p.metadata?.uid ?? "", p.metadata?.name ?? ""])),
      () => new Map<string, string>(),
    ),
    () => new Map<string, string>(),
  );
  return deps.projects.map((uid) => ({ uid, name: names.get(uid) || undefined }));
}

/** Opens step 1 of the launch modal for a requester already allowed to launch. */
export async function openLaunchModal(
  client: webApi.WebClient,
  triggerId: string,
  context: LaunchModalContext,
): Promise<void> {
  const { requester, deps } = context;
  const projects = await projectChoices(deps);
  await client.views.open({
    trigger_id: triggerId,
    view: launchView({
      metadata: {
        channel: requester.channelId,
        requester: requester.userId,
        ...(projects.length === 1 ? { project: projects[0]!.uid } : {}),
      },
      projects,
    }),
  });
}
