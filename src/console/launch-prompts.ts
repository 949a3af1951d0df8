import { loadChoices } from "../launch/options.ts";
import { checkLaunchPermission, refusalLine } from "../launch/permission.ts";
import { submitLaunch } from "../launch/submit.ts";
import { describeForUser } from "../palette/errors.ts";
import {
  type Choice,
  type FieldSpec,
  providerChoices,
  providerSpec,
  type RawValues,
} from "../palette/providers/index.ts";
import { isProvider, type Provider } from "../palette/providers-list.ts";
import type { CommandDeps, Requester } from "../verb-kit/types.ts";
import { launchCard, launchUnsettledNotice } from "../views/launch-card.ts";
import { renderBlocks } from "./render.ts";

/**
 * `/palette launch` in the console: the modal's form as prompts, provider first, then its fields,
 * with the same validation and messages; a bad answer is asked again. Ends by creating the
 * cluster and printing its launch card.
 */

export interface LaunchPromptsOptions {
  ask: (question: string) => Promise<string>;
  print: (text: string) => void;
  deps: CommandDeps;
  requester?: Requester;
  /** how often a field is asked again before giving up; default 5 */
  maxTries?: number;
}

export type LaunchPromptsResult =
  | { kind: "created"; clusterUid: string; launchId: number }
  /** Palette's answer is not in the store (see LaunchOutcome); the name stays reserved */
  | { kind: "unsettled"; launchId: number; message: string }
  | { kind: "cancelled"; reason: string };

class Cancelled extends Error {}

function numbered(choices: Choice[]): string {
  return choices.map((c, i) => `  ${String(i + 1).padStart(2)}. ${c.label}`).join("\n");
}

/** "3" → the third choice, or a value/label typed out (case-insensitive) */
function pick(answer: string, choices: Choice[]): string | undefined {
  const text = answer.trim();
  if (/^\d+$/.test(text)) return choices[Number(text) - 1]?.value;
  const lower = text.toLowerCase();
  return choices.find((c) => c.value.toLowerCase() === lower || c.label.toLowerCase() === lower)
    ?.value;
}

export async function runLaunchPrompts(
  options: LaunchPromptsOptions,
): Promise<LaunchPromptsResult> {
  const { print, deps } = options;
  const requester = options.requester ?? { userId: "console", channelId: "console" };
  const maxTries = options.maxTries ?? 5;
  const ask = async (question: string) => {
    let answer: string;
    try {
      answer = (await options.ask(question)).trim();
    } catch {
      // the input ran dry half-way (a pipe): nothing was created, and that is all there is to say
      throw new Cancelled("the input ended before the form was complete");
    }
    if (answer === "." || answer.toLowerCase() === "cancel") throw new Cancelled("cancelled");
    return answer;
  };

  const permission = await checkLaunchPermission(deps, requester.userId, "modal");
  if (!permission.allowed) {
    const reason = refusalLine(permission);
    print(reason);
    return { kind: "cancelled", reason };
  }

  try {
    print("Launch a cluster (type `cancel` to stop).");
    const projectUid = await askProject(ask, print, deps, maxTries);
    const provider = await askProvider(ask, print, maxTries);
    const spec = providerSpec(provider);
    print(`${spec.label}: ${spec.fields.length} questions.`);
    const raw: RawValues = {};

    for (;;) {
      for (const field of spec.fields) {
        if (raw[field.id] !== undefined) continue;
        raw[field.id] = await askField(field, {
          ask,
          print,
          deps,
          provider,
          projectUid,
          raw,
          maxTries,
        });
      }
      const outcome = await submitLaunch(
        {
          submissionKey: `console:${deps.clock.now()}:${Math.random().toString(36).slice(2)}`,
          provider,
          projectUid,
          raw,
          requester,
        },
        deps,
      );
      switch (outcome.kind) {
        case "created": {
          const card = launchCard({
            name: outcome.record.name,
            provider,
            projectUid: projectUid ?? "",
            requester: requester.userId,
            clusterUid: outcome.record.clusterUid,
            state: "Pending",
            consoleUrl: deps.consoleUrl,
          });
          print(renderBlocks(card.blocks));
          return {
            kind: "created",
            clusterUid: outcome.record.clusterUid!,
            launchId: outcome.record.id,
          };
        }
        case "invalid":
        case "refused": {
          // show every problem, then ask those fields again
          for (const [id, message] of Object.entries(outcome.errors)) {
            print(`✗ ${message}`);
            if (spec.fields.some((f) => f.id === id)) delete raw[id];
          }
          if (!Object.keys(outcome.errors).some((id) => spec.fields.some((f) => f.id === id))) {
            return { kind: "cancelled", reason: Object.values(outcome.errors).join(" ") };
          }
          break;
        }
        case "denied":
          print(outcome.message);
          return { kind: "cancelled", reason: outcome.message };
        case "duplicate":
          return { kind: "cancelled", reason: "already submitted" };
        case "unrecorded":
        case "unconfirmed": {
          // the console follows nothing: the bot, started on this store, looks the cluster up
          const notice = launchUnsettledNotice({
            kind: outcome.kind,
            name: outcome.record.name,
            pickup: "the next time it starts with this state file",
          });
          print(`⚠ ${notice.text}`);
          return { kind: "unsettled", launchId: outcome.record.id, message: notice.text };
        }
      }
    }
  } catch (error) {
    if (error instanceof Cancelled) {
      print("Launch cancelled.");
      return { kind: "cancelled", reason: error.message };
    }
    const reason = describeForUser(error);
    print(`✗ ${reason}`);
    return { kind: "cancelled", reason };
  }
}

type Ask = (question: string) => Promise<string>;

async function askProject(
  ask: Ask,
  print: (t: string) => void,
  deps: CommandDeps,
  maxTries: number,
) {
  const choices: Choice[] =
    deps.projects.length > 0
      ? deps.projects.map((uid) => ({ value: uid, label: uid }))
      : await loadChoices(deps.palette, "project", "", {});
  if (choices.length === 0) return undefined;
  if (choices.length === 1) {
    print(`Project: ${choices[0]!.label}`);
    return choices[0]!.value;
  }
  for (let i = 0; i < maxTries; i++) {
    const answer = await ask(`Project:\n${numbered(choices)}\n> `);
    const value = pick(answer, choices);
    if (value) return value;
    print("✗ Pick a project by its number.");
  }
  throw new Cancelled("no project");
}

async function askProvider(
  ask: Ask,
  print: (t: string) => void,
  maxTries: number,
): Promise<Provider> {
  const choices = providerChoices();
  for (let i = 0; i < maxTries; i++) {
    const value = pick(await ask(`Provider:\n${numbered(choices)}\n> `), choices);
    if (value && isProvider(value)) return value;
    print("✗ Pick a provider by its number or name.");
  }
  throw new Cancelled("no provider");
}

interface FieldContext {
  ask: Ask;
  print: (t: string) => void;
  deps: CommandDeps;
  provider: Provider;
  projectUid?: string;
  raw: RawValues;
  maxTries: number;
}

async function askField(
  field: FieldSpec,
  ctx: FieldContext,
): Promise<string | string[] | undefined> {
  const spec = providerSpec(ctx.provider);
  const suffix = `${field.optional ? " (optional, Enter to skip)" : ""}${field.initial ? ` [${field.initial}]` : ""}`;
  const hint = field.hint
    ? `\n  ${field.hint}`
    : field.placeholder
      ? `\n  e.g. ${field.placeholder}`
      : "";
  for (let i = 0; i < ctx.maxTries; i++) {
    let answer: string | string[] | undefined;
    if (field.kind === "external" || field.kind === "multi_external" || field.kind === "select") {
      const choices =
        field.kind === "select"
          ? (field.choices ?? [])
          : await loadChoices(ctx.deps.palette, field.source!, "", {
              provider: ctx.provider,
              projectUid: ctx.projectUid,
              clusterGroup:
                typeof ctx.raw.clusterGroup === "string" ? ctx.raw.clusterGroup : undefined,
            });
      if (choices.length === 0) {
        ctx.print(`  (no ${field.label.toLowerCase()} found)`);
        if (field.optional) return undefined;
      }
      const many = field.kind === "multi_external" ? " (numbers separated by commas)" : "";
      const text = await ctx.ask(
        `${field.label}${many}${suffix}:${hint}\n${numbered(choices)}\n> `,
      );
      if (text === "") answer = field.initial;
      else if (field.kind === "multi_external") {
        const picked = text
          .split(/[\s,]+/)
          .filter(Boolean)
          .map((part) => pick(part, choices));
        answer = picked.every((v) => v !== undefined) ? (picked as string[]) : ["?"];
      } else answer = pick(text, choices) ?? text;
    } else {
      const text = await ctx.ask(`${field.label}${suffix}:${hint}\n> `);
      answer = text === "" ? field.initial : text;
    }
    // the same zod schema the modal uses, so the message is the same
    const check = spec.validate({ ...ctx.raw, [field.id]: answer });
    const message = check.ok ? undefined : check.errors[field.id];
    if (!message) return answer;
    ctx.print(`✗ ${message}`);
  }
  throw new Cancelled(`gave up on ${field.id}`);
}
