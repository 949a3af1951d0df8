import type { Logger } from "../log.ts";
import { PaletteError } from "../palette/errors.ts";
import type { Secret } from "../secret.ts";
import type { IdentityLink } from "../store/identities.ts";
import type { IdentityDeps } from "../verb-kit/identity-deps.ts";
import { errorSummary } from "../verb-kit/log-error.ts";

export type LinkResult =
  | { ok: true; link: IdentityLink }
  /** `problem`: a sentence for the form's field; never the key, never a stack trace */
  | { ok: false; problem: string };

/** What a personal API key looks like: Palette's are long base64-ish strings. */
const KEY_SHAPE = /^[A-Za-z0-9._~+/=-]{16,512}$/;

/**
 * Links a Slack user to the Palette user whose API key they pasted: Palette says whose it is
 * (`GET /v1/users/info`, then the user's name), and only then is it stored, sealed.
 */
export async function linkWithKey(
  slackUserId: string,
  apiKey: Secret,
  deps: Pick<IdentityDeps, "store" | "paletteAs"> & {
    logger: Logger;
    /**
     * Asked once Palette has said whose the key is, just before it is stored: false when the
     * person was already given an answer (the form's deadline passed), and then nothing is
     * stored, so the outcome they were told is the only one. Absent: always store.
     */
    stillWanted?: () => boolean;
  },
): Promise<LinkResult> {
  const key = apiKey.reveal().trim();
  if (!KEY_SHAPE.test(key)) {
    return {
      ok: false,
      problem:
        "That does not look like a Palette API key: paste the whole key, with nothing around it.",
    };
  }
  const palette = deps.paletteAs(apiKey);
  try {
    const me = await palette.whoAmI();
    const user = await palette
      .getUser(me.userUid)
      .catch(() => ({ uid: me.userUid, name: me.userUid }));
    if (deps.stillWanted && !deps.stillWanted()) {
      deps.logger.info("Palette vouched for a key after the login form's deadline; not linked");
      return {
        ok: false,
        problem: "Palette answered after the form had closed; nothing was linked. Try again.",
      };
    }
    const link = await deps.store.put({
      slackUserId,
      paletteUserUid: me.userUid,
      paletteUserName: user.name,
      ...(me.orgName ? { org: me.orgName } : {}),
      method: "key",
      apiKey,
    });
    return { ok: true, link };
  } catch (error) {
    deps.logger.info({ err: errorSummary(error) }, "a Palette key was not linked");
    if (error instanceof PaletteError && error.kind === "unauthorized") {
      return {
        ok: false,
        problem:
          "Palette refused that key: it is wrong, expired or revoked. Create a new one and paste it again.",
      };
    }
    return {
      ok: false,
      problem: "Palette could not say whose key that is right now; try again in a minute.",
    };
  } finally {
    await palette.close();
  }
}
