import { describe, expect, it } from "vitest";
import { numberPlaceholders } from "../../../src/store/sql-placeholders.ts";

describe("numberPlaceholders", () => {
  it("numbers each ? of the SQL code in order", () => {
    expect(numberPlaceholders("UPDATE t SET a = ?, b = ? WHERE id = ?")).toBe(
      "UPDATE t SET a = $1, b = $2 WHERE id = $3",
    );
  });

  it("leaves a ? inside string literals, with '' and E'\\'' escapes, alone", () => {
    expect(numberPlaceholders("SELECT '?', 'it''s ?', ?")).toBe("SELECT '?', 'it''s ?', $1");
    expect(numberPlaceholders("SELECT E'\\' ?', ?")).toBe("SELECT E'\\' ?', $1");
    // a backslash only escapes in E'' strings: here the literal ends at the second quote
    expect(numberPlaceholders("SELECT 'a\\', ?")).toBe("SELECT 'a\\', $1");
  });

  it("leaves quoted identifiers, comments and dollar-quoted bodies alone", () => {
    expect(numberPlaceholders('SELECT "odd?name" FROM t WHERE x = ?')).toBe(
      'SELECT "odd?name" FROM t WHERE x = $1',
    );
    expect(numberPlaceholders("SELECT ? -- why?\n, ?")).toBe("SELECT $1 -- why?\n, $2");
    expect(numberPlaceholders("SELECT /* a? /* nested? */ b? */ ?")).toBe(
      "SELECT /* a? /* nested? */ b? */ $1",
    );
    expect(numberPlaceholders("DO $body$ SELECT '?' $body$; SELECT $$?$$, ?")).toBe(
      "DO $body$ SELECT '?' $body$; SELECT $$?$$, $1",
    );
  });

  it("changes nothing in SQL without placeholders", () => {
    const ddl = "CREATE TABLE a (x INTEGER NOT NULL DEFAULT 0); CREATE INDEX a_x ON a (x);";
    expect(numberPlaceholders(ddl)).toBe(ddl);
  });
});
