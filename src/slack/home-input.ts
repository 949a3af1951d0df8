import type { AccessPolicy, Permission } from "../access/types.ts";
import type { Clock } from "../clock.ts";
import type { Logger } from "../log.ts";
import { describeForUser } from "../palette/errors.ts";
import type {
  AppHomeInput,
  FleetSnapshot,
  HomeHold,
  HomeIdentity,
  HomeSubscription,
} from "../views/app-home.ts";

/**
 * What the App Home shows a user. The data sources are injected: src/app/home-sources.ts gives
 * the poller's last snapshot (or a search when it is stale) and the subscription store, so this
 * file knows neither Palette nor SQLite.
 */

export interface HomeDeps {
  fleet(): Promise<FleetSnapshot>;
  /** subscriptions of the channels `userId` is a member of */
  subscriptionsFor(userId: string): Promise<HomeSubscription[]>;
  /** snoozes and mutes running in the channels `userId` is a member of; absent: not shown */
  holdsFor?(userId: string): Promise<HomeHold[]>;
  /** the radar's risks by severity; absent: not shown */
  risks?(): Promise<Record<string, number>>;
  /** IDENTITY=linked or strict: whom `userId` acts as; absent: the section is not shown */
  identityOf?(userId: string): Promise<HomeIdentity>;
  policy: AccessPolicy;
  /** PALETTE_CONSOLE_URL */
  consoleUrl: string;
  clock: Clock;
  logger: Logger;
}

const PERMISSIONS: Permission[] = ["launch", "kubeconfig", "subscribe", "ack", "scale", "delete"];

/** Gathers everything the view needs; every source may fail on its own without hiding the rest. */
export async function homeInput(userId: string, deps: HomeDeps): Promise<AppHomeInput> {
  const [fleet, subscriptions, holds, identity, risks, ...allowed] = await Promise.all([
    deps.fleet().catch((error: unknown) => {
      deps.logger.warn({ err: error }, "app home: fleet unavailable");
      // Palette errors have a user-safe description; anything else is not shown verbatim.
      return { error: describeForUser(error) };
    }),
    deps.subscriptionsFor(userId).catch((error: unknown) => {
      deps.logger.warn({ err: error }, "app home: subscriptions unavailable");
      return undefined;
    }),
    deps.holdsFor?.(userId).catch((error: unknown) => {
      deps.logger.warn({ err: error }, "app home: mutes and snoozes unavailable");
      return null;
    }),
    deps.identityOf?.(userId).catch((error: unknown) => {
      deps.logger.warn({ err: String(error) }, "app home: identity unavailable");
      return null;
    }),
    deps.risks?.().catch((error: unknown) => {
      deps.logger.warn({ err: String(error) }, "app home: the radar's risks unavailable");
      return null;
    }),
    ...PERMISSIONS.map((permission) => deps.policy.allows(userId, permission).catch(() => false)),
  ]);
  const permissions = Object.fromEntries(
    PERMISSIONS.map((permission, index) => [
      permission,
      { allowed: allowed[index] === true, hint: deps.policy.grantHint(permission) },
    ]),
  ) as AppHomeInput["permissions"];
  return {
    userId,
    fleet,
    permissions,
    subscriptions,
    ...(holds !== undefined ? { holds } : {}),
    ...(identity !== undefined ? { identity } : {}),
    ...(risks !== undefined ? { risks } : {}),
    consoleUrl: deps.consoleUrl,
    now: deps.clock.now(),
  };
}
