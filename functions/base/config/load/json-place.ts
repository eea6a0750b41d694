/**
 * Where a JSON config breaks, and how, without quoting it: a config may hold a header value, and
 * JSON.parse's own message quotes the text ("Unexpected token ']', "{"a":[1,]}" is not valid JSON") and,
 * on Node 20, names no position for a trailing comma at all. This scanner walks RFC 8259's grammar (a
 * page long) to the first character that breaks it. No library: a JSON parser with error offsets would
 * be one more dependency in the CLI bundle for a line and a column.
 */
import { CanaryError, CanaryErrorCode, isCanaryError } from '../../common/errors.ts';

export interface JsonSyntaxError {
  readonly line: number;
  readonly column: number;
  /** What is wrong, in words that quote no value from the file (only JSON's own punctuation). */
  readonly problem: string;
}

/** The first syntax error in `text`, or null when it is valid JSON. */
export function jsonSyntaxError(text: string): JsonSyntaxError | null {
  try {
    new Scanner(text).document();
    return null;
  } catch (e) {
    if (!isCanaryError(e, CanaryErrorCode.jsonSyntax)) throw e;
    return place(text, e.data.offset, e.message);
  }
}

/**
 * The first field named twice in one object of valid JSON, or null. JSON.parse keeps the last silently, so
 * a copied block that sets `schedule` twice would deploy whichever came last; the config refuses it
 * instead. The key is named only when it looks like a field name (never a value-like string).
 */
export function jsonDuplicateKey(text: string): JsonSyntaxError | null {
  try {
    new Scanner(text, true).document();
    return null;
  } catch (e) {
    if (!isCanaryError(e, CanaryErrorCode.jsonSyntax)) throw e;
    return place(text, e.data.offset, e.message);
  }
}

function place(text: string, offset: number, problem: string): JsonSyntaxError {
  // A lone CR ends a line too (editors count it), as CRLF and LF do.
  const before = text.slice(0, offset).split(/\r\n|\r|\n/);
  return { line: before.length, column: before.at(-1)!.length + 1, problem };
}

class Scanner {
  private i = 0;
  constructor(
    private readonly text: string,
    /** Also fail on a field named twice in one object (valid JSON, so off for syntax errors). */
    private readonly duplicates = false,
  ) {}

  document(): void {
    this.value();
    this.space();
    if (this.i < this.text.length) this.fail('more text after the end of the JSON value (one object per file)');
  }

  private fail(problem: string): never {
    throw new CanaryError(CanaryErrorCode.jsonSyntax, problem, { offset: this.i });
  }

  /**
   * Skips JSON's four spaces, and stops at what a user meant as space but JSON refuses, with its own
   * message: a comment (JSONC habits), or a space character JSON does not know (a no-break space pasted
   * from a web page looks like a space and is reported as one). Both are errors to JSON.parse too.
   */
  private space(): void {
    while (' \t\n\r'.includes(this.text[this.i] ?? '.')) this.i++;
    const c = this.text[this.i];
    if (c === '/' && ['/', '*'].includes(this.text[this.i + 1] ?? ''))
      this.fail('a comment: JSON has none, so remove it (or write the config as a .ts file, which may have comments)');
    if (c !== undefined && /\s/.test(c)) {
      const cp = c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
      this.fail(`a space character JSON does not allow (U+${cp}, e.g. a no-break space pasted from a page): retype it as a plain space`);
    }
  }

  private value(): void {
    this.space();
    const c = this.text[this.i];
    if (c === undefined) this.fail('the file ends where a value should be');
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number();
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.i)) {
        this.i += word.length;
        return;
      }
    }
    if (c === "'") this.fail('a string in single quotes: JSON strings use double quotes');
    if (c === '}' || c === ']') this.fail(`a value is missing before "${c}"`);
    this.fail('a value was expected here (text needs double quotes; true, false and null are lower case)');
  }

  private object(): void {
    this.i++;
    this.space();
    if (this.text[this.i] === '}') {
      this.i++;
      return;
    }
    const seen = new Map<string, number>();
    for (;;) {
      this.space();
      const c = this.text[this.i];
      if (c === '}') this.fail('a comma before "}": JSON allows no trailing comma');
      if (c !== '"')
        this.fail(c === undefined ? 'the file ends inside an object: close it with "}"' : 'a field name must be in double quotes');
      const start = this.i;
      this.string();
      if (this.duplicates) this.once(seen, start);
      this.space();
      if (this.text[this.i] !== ':') this.fail('a colon ":" is missing after the field name');
      this.i++;
      this.value();
      this.space();
      const next = this.text[this.i];
      if (next === '}') {
        this.i++;
        return;
      }
      if (next !== ',')
        this.fail(next === undefined ? 'the file ends inside an object: close it with "}"' : 'a comma "," or "}" is missing here');
      this.i++;
    }
  }

  private once(seen: Map<string, number>, start: number): void {
    const key = JSON.parse(this.text.slice(start, this.i)) as string;
    const first = seen.get(key);
    if (first !== undefined) {
      const at = place(this.text, first, '');
      const named = /^[A-Za-z_$][\w$.-]{0,63}$/.test(key) ? `the field ${JSON.stringify(key)}` : 'a field';
      this.i = start;
      this.fail(
        `${named} is given twice in one object (first at ${at.line}:${at.column}): JSON would keep the last one silently, so remove one`,
      );
    }
    seen.set(key, start);
  }

  private array(): void {
    this.i++;
    this.space();
    if (this.text[this.i] === ']') {
      this.i++;
      return;
    }
    for (;;) {
      this.space();
      if (this.text[this.i] === ']') this.fail('a comma before "]": JSON allows no trailing comma');
      this.value();
      this.space();
      const next = this.text[this.i];
      if (next === ']') {
        this.i++;
        return;
      }
      if (next !== ',')
        this.fail(next === undefined ? 'the file ends inside a list: close it with "]"' : 'a comma "," or "]" is missing here');
      this.i++;
    }
  }

  private string(): void {
    this.i++;
    for (;;) {
      const c = this.text[this.i];
      if (c === undefined) this.fail('a string is not closed: add the closing double quote');
      if (c === '"') {
        this.i++;
        return;
      }
      if (c === '\\') {
        const e = this.text[this.i + 1];
        if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(this.text.slice(this.i + 2, this.i + 6))) this.i += 6;
        else if (e !== undefined && '"\\/bfnrt'.includes(e)) this.i += 2;
        else this.fail('a bad escape in a string: write \\\\ for a backslash');
        continue;
      }
      if (c.charCodeAt(0) < 0x20) this.fail('a line break or tab inside a string: write \\n or \\t');
      this.i++;
    }
  }

  private number(): void {
    const m = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
    m.lastIndex = this.i;
    const found = m.exec(this.text);
    if (!found) this.fail('a number is malformed (JSON numbers have no leading zeros, "+", or trailing ".")');
    this.i += found[0].length;
  }
}
