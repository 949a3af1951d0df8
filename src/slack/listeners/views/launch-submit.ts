import type { AllMiddlewareArgs, App, SlackViewMiddlewareArgs } from "@slack/bolt";
import { GENERAL_ERROR_FIELD, type LaunchOutcome, submitLaunch } from "../../../launch/submit.ts";
import type { LaunchTracker } from "../../../launch/watch.ts";
import type { CommandDeps } from "../../../verb-kit/types.ts";
import { launchUnsettledNotice } from "../../../views/launch-card.ts";
import {
  LAUNCH_CALLBACK_ID,
  launchNoticeView,
  launchView,
  PROJECT_FIELD,
  PROVIDER_FIELD,
  providerOf,
} from "../../../views/launch-modal.ts";
import { ackWithin } from "../../ack.ts";
import type { InFlight } from "../../in-flight.ts";
import { projectsInView, readLaunchView } from "../../launch-modal-state.ts";
import { SLOW_OPTION_VALUE } from "../options/launch-field.ts";

/** Slack closes the modal with an error after 3 s; answer within this, or say we carry on. */
export const SUBMIT_BUDGET_MS = 2_500;

function blockIds(blocks: unknown): Set<string> {
  const ids = new Set<string>();
  if (Array.isArray(blocks)) {
    for (const block of blocks) {
      const id = (block as { block_id?: unknown }).block_id;
      if (typeof id === "string") ids.add(id);
    }
  }
  return ids;
}

/** values of the stand-in options shown when a look-up failed or was slow; never real choices */
const PLACEHOLDER_VALUES = new Set(["__error__", SLOW_OPTION_VALUE]);

/** fields whose answer is a look-up's stand-in option: the user must pick again */
export function placeholderErrors(raw: Record<string, unknown>): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const [field, value] of Object.entries(raw)) {
    const values = Array.isArray(value) ? value : [value];
    if (values.some((v) => typeof v === "string" && PLACEHOLDER_VALUES.has(v))) {
      errors[field] = "Palette did not answer this list; type again and pick an entry.";
    }
  }
  return errors;
}

/** `response_action: errors` may only name blocks of the view; others move to the provider block. */
export function errorsForView(
  errors: Record<string, string>,
  present: Set<string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, message] of Object.entries(errors)) {
    const key = present.has(field) ? field : PROVIDER_FIELD;
    out[key] = out[key] ? `${out[key]} ${message}` : message;
  }
  for (const key of Object.keys(out)) out[key] = out[key]!.slice(0, 2000);
  return out;
}

/**
 * The modal's submit. Step 1 (no form yet) moves on to the provider's form. Step 2 validates,
 * claims the submission in SQLite, asks Palette, and answers within Slack's window: field errors
 * (`response_action: errors`) for bad input and Palette refusals, a closed modal and a card in
 * the channel on success. A Palette slower than the window gets a "still working" view, later
 * replaced by the refusal if there is one: never a closed modal and silence.
 */
export function registerLaunchSubmit(
  app: App,
  deps: CommandDeps,
  tracker: LaunchTracker,
  inFlight?: InFlight,
): void {
  // tracked so a shutdown waits for a launch between Palette's answer and the store's record
  app.view(LAUNCH_CALLBACK_ID, (args) =>
    inFlight ? inFlight.run(() => handleSubmit(args)) : handleSubmit(args),
  );

  async function handleSubmit({
    ack,
    body,
    view,
    client,
  }: SlackViewMiddlewareArgs & AllMiddlewareArgs): Promise<void> {
    const userId = body.user.id;
    const { metadata, state } = readLaunchView(view, userId);
    const provider = providerOf(state, metadata);
    const present = blockIds(view.blocks);
    if (!provider) {
      await ack({ response_action: "errors", errors: { [PROVIDER_FIELD]: "Pick a provider." } });
      return;
    }
    if (!present.has("name")) {
      await ack({
        response_action: "update",
        view: launchView({ metadata, projects: projectsInView(view.blocks), provider, state }),
      });
      return;
    }
    const placeholders = placeholderErrors(state.raw);
    if (Object.keys(placeholders).length > 0) {
      await ack({ response_action: "errors", errors: errorsForView(placeholders, present) });
      return;
    }
    const project = state.raw[PROJECT_FIELD];
    const work = submitLaunch(
      {
        submissionKey: `slack:${view.id}`,
        provider,
        projectUid: typeof project === "string" ? project : metadata.project,
        raw: state.raw,
        requester: { userId, channelId: metadata.channel, teamId: body.team?.id },
      },
      deps,
    ).catch((error: unknown): LaunchOutcome => {
      deps.logger.error({ err: String(error) }, "launch failed");
      const message = "The launch failed on our side; the details are in the bot's log.";
      return { kind: "refused", errors: { [GENERAL_ERROR_FIELD]: message }, message };
    });
    const first = await ackWithin(SUBMIT_BUDGET_MS, work, () => "slow" as const);

    if (first === "slow") {
      await ack({
        response_action: "update",
        view: launchNoticeView(
          "Launching…",
          "Palette is taking a while to answer. The card appears in the channel as soon as the cluster is created; if Palette refuses, this window says why.",
        ),
      });
      const outcome = await work;
      if (outcome.kind === "unrecorded" || outcome.kind === "unconfirmed") {
        await client.views
          .update({ view_id: view.id, view: handOverUnsettled(outcome) })
          .catch((error: unknown) => deps.logger.warn({ err: String(error) }, "notice not shown"));
      } else if (outcome.kind === "created") {
        await tracker.follow(outcome.record.id);
        await client.views
          .update({
            view_id: view.id,
            view: launchNoticeView(
              "Launched",
              "The cluster is being created; follow its card in the channel.",
            ),
          })
          .catch(() => undefined);
      } else if (outcome.kind !== "duplicate") {
        const message =
          outcome.kind === "invalid" ? Object.values(outcome.errors).join("\n") : outcome.message;
        await client.views
          .update({ view_id: view.id, view: launchNoticeView("Not launched", `:x: ${message}`) })
          .catch((error: unknown) => deps.logger.warn({ err: String(error) }, "refusal not shown"));
      }
      return;
    }

    switch (first.kind) {
      case "invalid":
      case "refused":
        await ack({ response_action: "errors", errors: errorsForView(first.errors, present) });
        return;
      case "denied":
        await ack({ response_action: "errors", errors: { [PROVIDER_FIELD]: first.message } });
        return;
      case "duplicate":
        // the first submit of this view is (or was) handling it
        await ack();
        return;
      case "created":
        await ack();
        await tracker.follow(first.record.id);
        return;
      case "unrecorded":
      case "unconfirmed":
        await ack({ response_action: "update", view: handOverUnsettled(first) });
        return;
    }
  }

  /**
   * Palette's answer is not in the store: hands the reservation to the tracker, which looks the
   * cluster up by name, and returns the notice that tells the user so
   */
  function handOverUnsettled(
    outcome: Extract<LaunchOutcome, { kind: "unrecorded" | "unconfirmed" }>,
  ) {
    // a stopped tracker (shutting down) leaves it to the next start
    const soon = tracker.lookFor(outcome.record.id);
    const notice = launchUnsettledNotice({
      kind: outcome.kind,
      name: outcome.record.name,
      pickup: soon ? "within a minute" : "when it starts again",
    });
    return launchNoticeView(notice.title, notice.text);
  }
}
