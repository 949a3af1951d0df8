import type { CommandDeps } from "../verb-kit/types.ts";

/** What the day-2 use case needs: the commands' deps (approvals included). */
export type ChangeDeps = CommandDeps;

/** What a person asked for, before Palette was read. */
export type ChangeAsk =
  | { verb: "scale"; cluster: string; pool: string; size: number; project?: string }
  | {
      verb: "delete" | "repave" | "pause" | "resume" | "backup" | "logs" | "renew";
      cluster: string;
      project?: string;
    }
  /** `profile` (its name) and `version`: a newer version of a profile attached to the cluster */
  | { verb: "upgrade"; cluster: string; profile: string; version: string; project?: string }
  /** `machine`: a machine's name (as `/palette nodes` shows it) or UID */
  | { verb: "cordon" | "uncordon"; cluster: string; machine: string; project?: string };
