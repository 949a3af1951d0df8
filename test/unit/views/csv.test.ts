import { describe, expect, it } from "vitest";
import { csvField, toCsv } from "../../../src/views/csv.ts";

describe("csvField (RFC 4180)", () => {
  it("leaves a plain field as it is", () => {
    expect(csvField("prod-aws-01")).toBe("prod-aws-01");
    expect(csvField(42)).toBe("42");
    expect(csvField(true)).toBe("true");
  });

  it("writes nothing for a missing value", () => {
    expect(csvField(undefined)).toBe("");
    expect(csvField(null)).toBe("");
    expect(csvField("")).toBe("");
  });

  it("quotes a field with a comma, a quote, CR or LF, doubling its quotes", () => {
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("one\ntwo")).toBe('"one\ntwo"');
    expect(csvField("one\r\ntwo")).toBe('"one\r\ntwo"');
  });
});

describe("csvField (CSV injection)", () => {
  it.each([
    ['=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'],
    ["+1+1", "'+1+1"],
    ["-2+3", "'-2+3"],
    ["@SUM(A1:A2)", "'@SUM(A1:A2)"],
    ["\tcmd", "'\tcmd"],
  ])("a cell starting %j is read as text", (value, expected) => {
    const field = csvField(value);
    expect(field.replace(/^"|"$/g, "").replaceAll('""', '"')).toBe(expected);
    expect(field.startsWith("'") || field.startsWith("\"'")).toBe(true);
  });

  it("escapes first, then quotes: a formula with a comma is quoted with its '", () => {
    expect(csvField('=cmd|" /C calc"!A0,1')).toBe('"\'=cmd|"" /C calc""!A0,1"');
    expect(csvField("\rx")).toBe('"\'\rx"');
  });

  it("leaves a formula sign inside a cell alone", () => {
    expect(csvField("a=b")).toBe("a=b");
    expect(csvField("user@example.com")).toBe("user@example.com");
  });
});

describe("toCsv", () => {
  it("writes the header and every row, each ended by CRLF", () => {
    expect(
      toCsv(
        ["at", "user", "detail"],
        [
          ["2026-11-25T12:00:00.000Z", "W111", '{"a":1,"b":"x"}'],
          ["2026-11-25T12:01:00.000Z", "@here", undefined],
        ],
      ),
    ).toBe(
      'at,user,detail\r\n2026-11-25T12:00:00.000Z,W111,"{""a"":1,""b"":""x""}"\r\n2026-11-25T12:01:00.000Z,\'@here,\r\n',
    );
  });

  it("is a header alone when there are no rows", () => {
    expect(toCsv(["a", "b"], [])).toBe("a,b\r\n");
  });
});
