import type { App } from "@slack/bolt";
import { z } from "zod";
import { linkWithKey } from "../../../identity/link.ts";
import { Secret } from "../../../secret.ts";
import { LOGIN_CALLBACK_ID, LOGIN_KEY_FIELD } from "../../../views/login-modal.ts";
import { escapeMrkdwn } from "../../../views/mrkdwn.ts";
import { describeSlackError } from "../../slack-errors.ts";
import type { SlackEdge } from "../../types.ts";

/** Slack closes a modal whose submit is not answered in 3 s; the check gets most of that. */
const CHECK_BUDGET_MS = 2_500;

const submitted = z.object({
  [LOGIN_KEY_FIELD]: z.object({
    [LOGIN_KEY_FIELD]: z.object({ value: z.string().nullish() }),
  }),
});

/**
 * `/palette login`'s submit: Palette says whose the key is (src/identity/link.ts); a key it
 * refuses shows under the field, a good one closes the form and the person hears privately whom
 * they are linked as. The key is a Secret from the moment it is read.
 */
export function registerLoginSubmit(app: App, edge: SlackEdge): void {
  app.view(LOGIN_CALLBACK_ID, async ({ ack, body, view, client }) => {
    const identity = edge.commandDeps.identity;
    const fieldError = (message: string) =>
      ack({ response_action: "errors", errors: { [LOGIN_KEY_FIELD]: message.slice(0, 2000) } });
    if (!identity || identity.mode === "service") {
      await fieldError("Linking is off here (IDENTITY=service).");
      return;
    }
    const parsed = submitted.safeParse(view.state.values);
    const raw = parsed.success ? parsed.data[LOGIN_KEY_FIELD][LOGIN_KEY_FIELD].value : undefined;
    if (!raw?.trim()) {
      await fieldError("Paste your Palette API key.");
      return;
    }
    const userId = body.user.id;
    // The outcome is decided once: either Palette vouched for the key before the deadline and
    // the link is stored (then the form waits for the store), or the form says "slow" and a late
    // answer from Palette stores nothing.
    let outcome: "pending" | "late" | "storing" = "pending";
    const checking = linkWithKey(userId, new Secret(raw.trim()), {
      store: identity.store,
      paletteAs: identity.paletteAs,
      logger: edge.logger,
      stillWanted: () => {
        if (outcome === "late") return false;
        outcome = "storing";
        return true;
      },
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => {
        if (outcome !== "pending") return;
        outcome = "late";
        resolve("late");
      }, CHECK_BUDGET_MS);
    });
    const result = await Promise.race([checking, late]);
    clearTimeout(timer);
    if (result === "late") {
      await fieldError("Palette is slow to answer; nothing was linked. Try again in a minute.");
      return;
    }
    if (!result.ok) {
      await fieldError(result.problem);
      return;
    }
    await ack();
    await edge.commandDeps.audit.record({
      userId,
      action: "identity",
      target: result.link.paletteUserUid,
      outcome: "granted",
      detail: JSON.stringify({
        change: "linked",
        method: "key",
        paletteUser: result.link.paletteUserName,
      }),
    });
    const org = result.link.org ? ` in ${escapeMrkdwn(result.link.org)}` : "";
    const text = `:white_check_mark: Linked as *${escapeMrkdwn(result.link.paletteUserName)}*${org}. Commands that act now run as you in Palette. \`/palette whoami\` shows it, \`/palette logout\` undoes it.`;
    try {
      const dm = await client.conversations.open({ users: userId });
      if (dm.channel?.id) await client.chat.postMessage({ channel: dm.channel.id, text });
    } catch (error) {
      edge.logger.warn({ slackError: describeSlackError(error).code }, "could not confirm a link");
    }
  });
}
