/**
 * The JSON scanner that names where a config breaks: it must agree with JSON.parse on what is valid (a
 * property over random documents and their one-character corruptions), point at the right character, and
 * never quote the text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonDuplicateKey, jsonSyntaxError } from '../../../../functions/base/config/load/json-place.ts';

const parses = (s: string) => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

describe('jsonSyntaxError', () => {
  it('agrees with JSON.parse on every document and every one-character corruption of it', () => {
    const doc = fc.json().chain((text) =>
      fc.record({
        text: fc.constant(text),
        at: fc.nat({ max: Math.max(0, text.length) }),
        insert: fc.constantFrom(',', '}', ']', '"', "'", ':', '\\', '\n', 'x', '0', ' ', '{', '[', '/', '*', '\u00a0', '\r'),
        mode: fc.constantFrom('keep', 'insert', 'delete', 'replace'),
      }),
    );
    fc.assert(
      fc.property(doc, ({ text, at, insert, mode }) => {
        const s =
          mode === 'keep'
            ? text
            : mode === 'insert'
              ? text.slice(0, at) + insert + text.slice(at)
              : mode === 'delete'
                ? text.slice(0, at) + text.slice(at + 1)
                : text.slice(0, at) + insert + text.slice(at + 1);
        expect(jsonSyntaxError(s) === null).toBe(parses(s));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    ['{"a": 1,}', 1, 9, 'a comma before "}": JSON allows no trailing comma'],
    ['{\n  "a": [1, 2,\n  ]\n}', 3, 3, 'a comma before "]": JSON allows no trailing comma'],
    ["{\n  'a': 1\n}", 2, 3, 'a field name must be in double quotes'],
    ['{"a": \'x\'}', 1, 7, 'a string in single quotes'],
    ['{"a" 1}', 1, 6, 'a colon ":" is missing after the field name'],
    ['{"a": 1 "b": 2}', 1, 9, 'a comma "," or "}" is missing here'],
    ['{"a": "line\nbreak"}', 1, 12, 'a line break or tab inside a string'],
    ['{"a": True}', 1, 7, 'a value was expected here'],
    ['{"a": 01}', 1, 8, 'a comma "," or "}" is missing here'],
    ['{"a": 1', 1, 8, 'the file ends inside an object'],
    ['{} {}', 1, 4, 'more text after the end of the JSON value'],
    ['', 1, 1, 'the file ends where a value should be'],
    ['{\n  // the rates server\n  "a": 1\n}', 2, 3, 'a comment: JSON has none, so remove it'],
    ['{"a": [1, /* two */ 2]}', 1, 11, 'a comment: JSON has none'],
    ['{\n\t"a":\u00a01}', 2, 6, 'a space character JSON does not allow (U+00A0'],
    // Old Mac line ends (CR alone) count as lines, as an editor shows them.
    ['{\r  "a": 1,\r  "b": }', 3, 8, 'a value is missing before "}"'],
    ['{\r\n\t"a": 1,\r\n\t"b": 2,\r\n}', 4, 1, 'a comma before "}"'],
  ])('%j → line %i, column %i: %s', (text, line, column, problem) => {
    const found = jsonSyntaxError(text)!;
    expect([found.line, found.column]).toEqual([line, column]);
    expect(found.problem).toContain(problem);
  });

  it('finds no field named twice in any document JSON.stringify writes (its keys are unique)', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(jsonDuplicateKey(text)).toBeNull();
      }),
      { numRuns: 1000 },
    );
  });

  it.each([
    [
      '{\n  "schedule": "rate(1 minute)",\n  "schedule": "rate(5 minutes)"\n}',
      3,
      3,
      'the field "schedule" is given twice in one object (first at 2:3)',
    ],
    ['{"a": {"b": 1}, "c": {"b": 2, "b": 3}}', 1, 31, 'the field "b" is given twice in one object (first at 1:23)'],
    // Written another way, the same name: JSON.parse reads both as "ab".
    ['{"ab": 1, "a\\u0062": 2}', 1, 11, 'the field "ab" is given twice'],
    ['{"Bearer sk-live-1": 1, "Bearer sk-live-1": 2}', 1, 25, 'a field is given twice in one object'],
  ])('%j → line %i, column %i: %s', (text, line, column, problem) => {
    const found = jsonDuplicateKey(text)!;
    expect([found.line, found.column]).toEqual([line, column]);
    expect(found.problem).toContain(problem);
    expect(found.problem).not.toContain('sk-live');
  });

  it('quotes nothing from the file', () => {
    const secret = 'Bearer sk-live-0123456789';
    for (const text of [`{"h": "${secret}" "x"}`, `{"h": ${secret}}`, `{"h": '${secret}'}`, `{"${secret}" 1}`]) {
      expect(JSON.stringify(jsonSyntaxError(text))).not.toMatch(/sk-live|Bearer/);
    }
  });
});
