import type { Clock } from "../clock.ts";
import type { IdentityConfig } from "../config.ts";
import type { Logger } from "../log.ts";
import type { PaletteIdentityApi } from "../palette/api.ts";
import { createPaletteClient } from "../palette/client.ts";
import { IdentityStore } from "../store/identities.ts";
import { IdentityCipher } from "../store/identity-cipher.ts";
import type { SqlExecutor } from "../store/sql.ts";
import type { IdentityDeps } from "../verb-kit/identity-deps.ts";
import type { HomeIdentity } from "../views/app-home.ts";

/**
 * IDENTITY=linked: the sealed store of links and a Palette client per person's key (one short-
 * lived client per acting command, no retries beyond one: a person waits for the answer).
 * undefined when the bot acts as its service account alone.
 */
export function buildIdentity(
  config: IdentityConfig,
  deps: {
    db: SqlExecutor;
    clock: Clock;
    logger: Logger;
    paletteApiUrl: string;
    /** LINK_METHOD=email: the service account's client, which finds users and mints keys */
    service?: PaletteIdentityApi;
    /** LINK_METHOD=email: the Slack user's e-mail (users.info, users:read.email) */
    emailOf?: (slackUserId: string) => Promise<string | undefined>;
    /** LINK_METHOD=email: the e-mail and whether they are of another workspace (beats emailOf) */
    slackPersonOf?: IdentityDeps["slackPersonOf"];
    /** counts minted keys left behind (the metrics' mintedKeyTrouble) */
    countMintedKeyTrouble?: IdentityDeps["countMintedKeyTrouble"];
  },
): IdentityDeps | undefined {
  if (config.mode === "service" || !config.keys) return undefined;
  const cipher = new IdentityCipher(config.keys.current, config.keys.previous);
  return {
    mode: config.mode,
    method: config.method,
    now: () => deps.clock.now(),
    ...(deps.service ? { service: deps.service } : {}),
    ...(deps.emailOf ? { emailOf: deps.emailOf } : {}),
    ...(deps.slackPersonOf ? { slackPersonOf: deps.slackPersonOf } : {}),
    ...(deps.countMintedKeyTrouble ? { countMintedKeyTrouble: deps.countMintedKeyTrouble } : {}),
    logger: deps.logger.child({ component: "identity" }),
    store: new IdentityStore(deps.db, cipher, deps.clock),
    paletteAs: (apiKey) =>
      createPaletteClient({
        baseUrl: deps.paletteApiUrl,
        credentials: { kind: "apiKey", apiKey },
        logger: deps.logger.child({ component: "palette-as-user" }),
        clock: deps.clock,
        retries: 1,
      }),
  };
}

/** The App Home's view of a user's link: the name and since when, never the key. */
export function identityOfHome(identity: IdentityDeps) {
  return async (userId: string): Promise<HomeIdentity> => {
    const link = await identity.store.get(userId);
    return link
      ? {
          link: {
            paletteUserName: link.paletteUserName,
            ...(link.org ? { org: link.org } : {}),
            linkedAt: link.linkedAt,
          },
        }
      : {};
  };
}
