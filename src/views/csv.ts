/**
 * CSV as RFC 4180 writes it (issue 25's audit export; reused wherever the bot hands out a table):
 * fields separated by commas, records ended by CRLF, a field holding a comma, a double quote, CR
 * or LF enclosed in double quotes with its quotes doubled.
 *
 * And safe to open in a spreadsheet: a cell that starts with `=`, `+`, `-`, `@`, a tab or a CR
 * would be read as a formula (CSV injection: `=HYPERLINK(…)`, `@SUM(…)`), so it gets a leading
 * `'`, which spreadsheets show as text. The values are names and reasons people and Palette
 * typed, so every cell is escaped, the header too.
 */

export type CsvValue = string | number | boolean | null | undefined;

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** one field: neutralised as a formula, then quoted when RFC 4180 asks for it */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** one record, CRLF-ended: a streamed file is these one after another after the header's */
export function csvRecord(row: readonly CsvValue[]): string {
  return `${row.map(csvField).join(",")}\r\n`;
}

/** a header and its rows, every record (the last too) ended by CRLF */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
  return [header, ...rows].map(csvRecord).join("");
}
