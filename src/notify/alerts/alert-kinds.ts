import type { Logger } from "../../log.ts";
import type { PaletteApi } from "../../palette/api.ts";
import { PaletteError } from "../../palette/errors.ts";
import { type ScopeRead, scopeQuery } from "../poll/scope-read.ts";

/*
 * Which alerts each poll scope has (Palette's alert components), and whether Palette lets the bot
 * read them at all. They change about never, so the poller keeps them between cycles; a refusal
 * costs a scope its alerts, never its cluster changes, and is said once, not every cycle.
 */

/** The alert kinds of one scope as read this cycle. */
export interface AlertKinds {
  /** the kinds Palette lists for the scope; empty while they are refused */
  supported: Set<string>;
  /** set when Palette refused them: the refusal, and Palette's words for the log */
  refused?: { summary: string; detail: string };
}

/**
 * A refusal of the alert kinds that leaves the cluster listing usable: the bot's role may not read
 * alerts in the project (403), or this Palette does not serve them there (404). Anything else
 * (5xx, time-out, 401) fails the cycle as before, to be retried whole.
 */
function alertsRefusal(error: unknown): string | undefined {
  if (!(error instanceof PaletteError)) return undefined;
  if (error.kind === "forbidden") return `Palette refused (${error.status || 403})`;
  if (error.kind === "not_found") return `Palette has none (${error.status || 404})`;
  return undefined;
}

const scopeName = (scope: string) => (scope ? `project ${scope}` : "the tenant");

export async function readKinds(
  palette: Pick<PaletteApi, "listAlertComponents">,
  scope: string,
): Promise<AlertKinds> {
  try {
    const components = await palette.listAlertComponents(scopeQuery(scope));
    return {
      supported: new Set(components.map((c) => c.name ?? "").filter((name) => name.length > 0)),
    };
  } catch (error) {
    // the clusters were read: a refusal of the alert kinds costs the alerts, not the listing
    const refusal = alertsRefusal(error);
    if (!refusal) throw error;
    const summary = `alerts unavailable for ${scopeName(scope)}: ${refusal}`;
    const detail = error instanceof Error ? error.message : String(error);
    return { supported: new Set(), refused: { summary, detail } };
  }
}

/** One cycle's alert kinds: the ones it judges alerts by, and the ones it read from Palette. */
export interface CycleKinds {
  /** per scope whose alerts this cycle evaluates */
  kinds: Map<string, AlertKinds>;
  /** per scope whose kinds this cycle read (what `settled` judges once the cycle committed) */
  kindsRead: Map<string, AlertKinds>;
}

/** The alert kinds the poller remembers across cycles, and the scopes where they are refused. */
export interface AlertKindsMemory {
  /** whether the scope's alerts were unavailable as of the last committed cycle */
  isOff(scope: string): boolean;
  forCycle(
    palette: Pick<PaletteApi, "listAlertComponents">,
    reads: ReadonlyMap<string, ScopeRead>,
    hasNews: (scope: string) => boolean,
  ): Promise<CycleKinds>;
  /** after a committed cycle: remembers what it read, and says what became (un)available */
  settled(kindsRead: ReadonlyMap<string, AlertKinds>): void;
  /** why alerts are unavailable, one line per scope, for readiness */
  unavailable(): string[];
}

export function alertKindsMemory(logger: Logger): AlertKindsMemory {
  /** each scope's alert kinds as last read (at a reconciliation, mostly) */
  const knownKinds = new Map<string, AlertKinds>();
  /** scope → why its alerts are unavailable, as of the last committed cycle */
  const alertsOff = new Map<string, string>();

  return {
    isOff: (scope) => alertsOff.has(scope),
    // Alert kinds (which alerts a project has) change about never: they are read at each
    // reconciliation and kept, and read between them only while a scope's alerts are unavailable
    // (to notice their return) or not known yet. An incremental cycle with news uses the kept
    // ones, so news costs no extra call.
    async forCycle(palette, reads, hasNews) {
      const kinds = new Map<string, AlertKinds>();
      const kindsRead = new Map<string, AlertKinds>();
      for (const [scope, read] of reads) {
        const known = knownKinds.get(scope);
        if (read.mode === "full" || alertsOff.has(scope) || !known) {
          const fresh = await readKinds(palette, scope);
          kindsRead.set(scope, fresh);
          kinds.set(scope, fresh);
        } else if (hasNews(scope)) {
          kinds.set(scope, known);
        }
      }
      return { kinds, kindsRead };
    },
    /**
     * A scope whose alert kinds Palette refuses is said once (log and readiness), not every
     * cycle; its return is logged once too. Only scopes whose kinds this cycle read are judged.
     */
    settled(kindsRead) {
      for (const [scope, scopeKinds] of kindsRead) {
        const refused = scopeKinds.refused;
        if (refused && !alertsOff.has(scope)) {
          alertsOff.set(scope, refused.summary);
          logger.warn(
            { project: scope, err: refused.detail },
            `${refused.summary}; cluster changes are still reported`,
          );
        } else if (!refused && alertsOff.has(scope)) {
          alertsOff.delete(scope);
          logger.info({ project: scope }, `alerts available again for ${scopeName(scope)}`);
        }
      }
      for (const [scope, read] of kindsRead) knownKinds.set(scope, read);
    },
    unavailable: () => [...alertsOff.values()],
  };
}
