/**
 * The stores write `?` placeholders (the subset SQLite and PostgreSQL share, src/store/sql.ts);
 * PostgreSQL numbers its own: `$1 … $n`. This rewrites one into the other, skipping what is not
 * SQL code: string literals ('…' with '' inside, E'…' with backslash escapes), quoted identifiers
 * ("…"), dollar-quoted bodies ($tag$…$tag$) and comments (-- to the end of the line, nested
 * /* … *\/). PostgreSQL's JSON operators `?`, `?|` and `?&` are therefore not usable in store SQL;
 * none is needed (JSON is stored as TEXT).
 */
export function numberPlaceholders(sql: string): string {
  let out = "";
  let count = 0;
  let i = 0;
  while (i < sql.length) {
    const char = sql[i];
    const next = sql[i + 1];
    let end: number;
    if (char === "'") end = endOfString(sql, i, isEscapeStringPrefix(sql, i));
    else if (char === '"') end = endOfQuoted(sql, i, '"');
    else if (char === "-" && next === "-") end = endOfLine(sql, i);
    else if (char === "/" && next === "*") end = endOfBlockComment(sql, i);
    else if (char === "$") end = endOfDollarQuote(sql, i);
    else if (char === "?") {
      count += 1;
      out += `$${count}`;
      i += 1;
      continue;
    } else end = i + 1;
    out += sql.slice(i, end);
    i = end;
  }
  return out;
}

const IDENTIFIER_CHAR = /[A-Za-z0-9_$]/;

/** `E'…'` (or `e'…'`) not preceded by an identifier character: backslash escapes apply */
function isEscapeStringPrefix(sql: string, quote: number): boolean {
  const before = sql[quote - 1];
  if (before !== "E" && before !== "e") return false;
  return quote < 2 || !IDENTIFIER_CHAR.test(sql[quote - 2] ?? "");
}

/** index just past the closing quote of the literal opening at `start` (or the end of sql) */
function endOfString(sql: string, start: number, backslashEscapes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    const char = sql[i];
    if (backslashEscapes && char === "\\") {
      i += 2;
      continue;
    }
    if (char === "'") {
      if (sql[i + 1] === "'") {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i += 1;
  }
  return sql.length;
}

function endOfQuoted(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i += 1;
  }
  return sql.length;
}

function endOfLine(sql: string, start: number): number {
  const newline = sql.indexOf("\n", start);
  return newline === -1 ? sql.length : newline + 1;
}

function endOfBlockComment(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql[i] === "/" && sql[i + 1] === "*") {
      depth += 1;
      i += 2;
    } else if (sql[i] === "*" && sql[i + 1] === "/") {
      depth -= 1;
      i += 2;
      if (depth === 0) return i;
    } else i += 1;
  }
  return sql.length;
}

/** `$tag$ … $tag$` (tag may be empty); a `$` that opens none (e.g. `$1`) is just itself */
function endOfDollarQuote(sql: string, start: number): number {
  if (start > 0 && IDENTIFIER_CHAR.test(sql[start - 1] ?? "")) return start + 1;
  const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(start))?.[0];
  if (tag === undefined) return start + 1;
  const close = sql.indexOf(tag, start + tag.length);
  return close === -1 ? sql.length : close + tag.length;
}
