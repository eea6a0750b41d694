/**
 * Pure: the expectation `mcp-canary init` records from a tool's real answers — what every later good
 * answer will hold too. The tool is called more than once, and only what every answer agrees on is a
 * candidate; of that, only what does not look volatile: no numbers (a price, a count, a temperature
 * moves), no timestamps, dates, versions, UUIDs, long hex or base64 runs, nothing under a key named like an id or
 * a time, nothing inside an array (lists reorder and grow), and nothing the run's Redactor knows (a
 * whoami tool that echoes the credential). `structuredContent` paths first (`expectJson`), else a phrase
 * of the text (`expectText`). The comparisons are the call step's own (probe/expect.ts).
 */
import { lookup, sameJson } from '../probe/expect.ts';

export interface Answer {
  readonly structuredContent: unknown;
  readonly text: string;
}

export interface Expectation {
  readonly expectJson: Record<string, unknown>;
  readonly expectText?: string;
  /** One line on what was recorded, or why nothing was. */
  readonly said: string;
}

/** At most this many paths: enough to tell a good answer, few enough to read. */
const MAX_PATHS = 5;
const MAX_TEXT = 80;
const MAX_STRING = 100;
/** How deep into structuredContent a path may go: a hostile answer nests without end. */
const MAX_DEPTH = 6;
/** Words of a key (camelCase, snake_case, kebab-case) whose values change from answer to answer by their nature. */
const VOLATILE_WORDS = new Set(
  'id ids uuid guid nonce etag token cursor request trace span session time timestamp date at created updated expires modified elapsed latency duration now age ttl seq sequence'.split(
    ' ',
  ),
);

function volatileKey(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((w) => VOLATILE_WORDS.has(w));
}

export function expectationFrom(answers: readonly Answer[], isSecret: (s: string) => boolean): Expectation {
  const first = answers[0];
  if (!first) return { expectJson: {}, said: 'nothing recorded: the tool was not called' };
  const expectJson: Record<string, unknown> = {};
  for (const [path, value] of stableLeaves(first.structuredContent, '')) {
    if (Object.keys(expectJson).length >= MAX_PATHS) break;
    if (typeof value === 'string' && isSecret(value)) continue;
    const everywhere = answers.every((a) => {
      const got = lookup(a.structuredContent, path);
      return got.found && sameJson(got.value, value);
    });
    if (everywhere) expectJson[path] = value;
  }
  if (Object.keys(expectJson).length > 0) {
    return { expectJson, said: `expectJson: ${Object.keys(expectJson).join(', ')} (the same in all ${answers.length} answers)` };
  }
  const phrase = stablePhrase(answers.map((a) => a.text)).filter((p) => !isSecret(p))[0];
  if (phrase !== undefined) return { expectJson: {}, expectText: phrase, said: `expectText: a phrase all ${answers.length} answers hold` };
  return {
    expectJson: {},
    said: 'nothing recorded: every value of the answer changed between calls or looks volatile (numbers, times, ids); add tool.expectText or tool.expectJson by hand',
  };
}

/** `[path, value]` of the strings and booleans of an object tree, arrays left out, volatile keys and values left out. */
function stableLeaves(v: unknown, prefix: string, depth = 0): Array<[string, unknown]> {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || depth >= MAX_DEPTH) return [];
  const out: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(v)) {
    // A dotted path cannot name a key with a dot in it, and a volatile key's value is not worth keeping.
    if (key.includes('.') || key === '' || volatileKey(key)) continue;
    const path = `${prefix}${key}`;
    if (typeof value === 'boolean') out.push([path, value]);
    else if (typeof value === 'string' && !volatileText(value)) out.push([path, value]);
    else if (value !== null && typeof value === 'object' && !Array.isArray(value)) out.push(...stableLeaves(value, `${path}.`, depth + 1));
  }
  return out;
}

/**
 * A value that reads as a time, a date, an id, a version, a measurement or a blob: it will not be the
 * same tomorrow. A digit alone is not volatile (`eu-west-1`, `v2` are names); three in a row, or digits
 * around a `.` or `:` (a time, a version, a decimal), are.
 */
function volatileText(s: string): boolean {
  if (s.trim() === '' || s.length > MAX_STRING) return true;
  if (/\d{3,}|\d[.:,]\d/.test(s)) return true;
  if (/^[0-9a-f]{8,}$/i.test(s) || /[0-9a-f]{8}-[0-9a-f]{4}-/i.test(s) || /^[A-Za-z0-9+/_-]{24,}={0,2}$/.test(s)) return true;
  return false;
}

/**
 * The longest run of words (on one line of the first text) that every text contains, with no word that
 * holds a digit or looks volatile (the rule for values, below); cut at a word boundary to `MAX_TEXT` characters. Longest first.
 */
function stablePhrase(texts: readonly string[]): string[] {
  const [first] = texts;
  if (!first) return [];
  const runs: string[] = [];
  for (const line of first.split(/\r?\n/)) {
    let run: string[] = [];
    const flush = () => {
      if (run.length > 0) runs.push(...prefixesOf(run));
      run = [];
    };
    for (const word of line.split(/[ \t]+/).filter(Boolean)) {
      // In prose a number is a measurement ("12°C", "3 items"): any digit ends the phrase.
      if (/\d/.test(word) || volatileText(word)) flush();
      else run.push(word);
    }
    flush();
  }
  const held = runs.filter((r) => r.length >= 3 && r.length <= MAX_TEXT && texts.every((t) => t.includes(r)));
  return [...new Set(held)].sort((a, b) => b.length - a.length);
}

/** A run of words joined by one space, and its shorter leading parts (the whole may pass MAX_TEXT). */
function prefixesOf(words: readonly string[]): string[] {
  return words.map((_, i) => words.slice(0, words.length - i).join(' '));
}
