/**
 * Command text that buttons replay: views write it into button values, commands parse it back.
 */

/** Action IDs of buttons that run commands again; the button's `value` is the command text. */
export const RUN_COMMAND_ACTION = "palette_run";

/** Quotes a value so the command grammar reads it back as one argument. */
export function quoteArg(value: string): string {
  if (value !== "" && !/[\s"'“”‘’]/.test(value)) return value;
  if (!value.includes('"')) return `"${value}"`;
  if (!value.includes("'")) return `'${value}'`;
  return `"${value.replace(/"/g, "")}"`;
}
