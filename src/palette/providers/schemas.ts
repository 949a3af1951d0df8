import { z } from "zod";
import { PLAIN_TAG_VALUE } from "../tags.ts";

// Field schemas. Every one accepts what the edges send (text, null for an empty Slack input,
// arrays for multi-selects) and says in one sentence what it wants.

export function blank(value: unknown): unknown {
  if (value === null || value === undefined) return undefined;
  if (typeof value === "string") {
    const trimmed = value.trim();
    return trimmed === "" ? undefined : trimmed;
  }
  if (Array.isArray(value)) {
    const items = value
      .filter((item): item is string => typeof item === "string")
      .map((item) => item.trim())
      .filter((item) => item !== "");
    return items.length === 0 ? undefined : items;
  }
  return value;
}

export interface TextRule {
  pattern?: RegExp;
  message?: string;
  max?: number;
}

function requiredText(label: string, rule: TextRule = {}) {
  const max = rule.max ?? 255;
  let inner = z
    .string({
      error: (issue) =>
        issue.input === undefined ? `${label} is required.` : `${label} must be text.`,
    })
    .max(max, `${label} must be at most ${max} characters.`);
  if (rule.pattern) inner = inner.regex(rule.pattern, rule.message ?? `${label} is not valid.`);
  return z.preprocess(blank, inner);
}

function optionalText(label: string, rule: TextRule = {}) {
  const max = rule.max ?? 255;
  let inner = z.string().max(max, `${label} must be at most ${max} characters.`);
  if (rule.pattern) inner = inner.regex(rule.pattern, rule.message ?? `${label} is not valid.`);
  return z.preprocess(blank, inner.optional());
}

export type TextSchema<Optional extends boolean> = Optional extends true
  ? ReturnType<typeof optionalText>
  : ReturnType<typeof requiredText>;

/** Free text; an optional one parses a blank answer to undefined. */
export function text<Optional extends boolean>(
  label: string,
  optional: Optional,
  rule: TextRule = {},
): TextSchema<Optional> {
  return (optional ? optionalText(label, rule) : requiredText(label, rule)) as TextSchema<Optional>;
}

export function wholeNumber(label: string, min: number, max: number) {
  const range = `${label} must be a whole number from ${min} to ${max}.`;
  return z.preprocess(
    (value) => {
      const text = blank(value);
      if (typeof text !== "string") return text;
      return /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
    },
    z
      .number({ error: (issue) => (issue.input === undefined ? `${label} is required.` : range) })
      .int(range)
      .min(min, range)
      .max(max, range),
  );
}

export function oneOf(label: string, values: readonly string[]) {
  return z.preprocess(
    blank,
    z.string({ error: `${label} is required.` }).refine((value) => values.includes(value), {
      message: `${label} must be one of ${values.join(", ")}.`,
    }),
  );
}

function splitList(value: unknown): unknown {
  const text = blank(value);
  if (typeof text !== "string") return text;
  return text
    .split(/[\s,]+/)
    .map((part) => part.trim())
    .filter((part) => part !== "");
}

/** comma/space separated list (or a multi-select), e.g. availability zones */
export function optionalList(item: RegExp, message: string) {
  return z.preprocess(splitList, z.array(z.string().regex(item, message)).optional());
}

export function requiredList(label: string, item: RegExp, message: string) {
  return z.preprocess(
    splitList,
    z
      .array(z.string().regex(item, message), { error: `${label} is required.` })
      .min(1, `${label} is required.`),
  );
}

export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const nameSchema = z.preprocess(
  blank,
  z
    .string({ error: "Cluster name is required." })
    .max(63, "Cluster name must be at most 63 characters.")
    .regex(
      DNS_LABEL,
      "Cluster name must be a DNS label: lower-case letters, digits and '-', starting and ending with a letter or digit.",
    ),
);

const TAG_KEY =
  /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const TAG_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

export const tagsSchema = z.preprocess(
  (value) => {
    const text = blank(value);
    if (text === undefined) return [];
    return typeof text === "string" ? text.split(/[\s,]+/).filter((part) => part !== "") : text;
  },
  z
    .array(z.string())
    .max(20, "At most 20 tags.")
    .transform((tags, ctx) => {
      const labels: Record<string, string> = {};
      for (const tag of tags) {
        const at = tag.indexOf(":");
        const key = at === -1 ? tag : tag.slice(0, at);
        const value = at === -1 ? PLAIN_TAG_VALUE : tag.slice(at + 1);
        if (!TAG_KEY.test(key) || !TAG_VALUE.test(value)) {
          ctx.addIssue({
            code: "custom",
            message: `Tag "${tag.slice(0, 80)}" is not valid: use \`name\` or \`key:value\` with letters, digits, '-', '_' or '.' (at most 63 each).`,
          });
          return z.NEVER;
        }
        labels[key] = value;
      }
      return labels;
    }),
);
