/**
 * Secrets (header values, bearer tokens) must never reach logs, results, metrics or pages — even when a
 * hostile server echoes them back in an error body or a tool's text. Every string that leaves the engine
 * goes through one Redactor built from the target's secret values.
 */
import { looksLikeCredential, safeDecode } from './shown-url.ts';

export const REDACTED = '[redacted]';

/** What every truncation ends with (see `oneLine`), so the Redactor can find a secret's head before it. */
export const ELLIPSIS = '…';

/**
 * The one way to cut text that leaves the canary: one line, bounded, and a cut always ends in
 * `ELLIPSIS` — the Redactor relies on that to redact the head of a secret cut at the limit.
 */
export function oneLine(s: string, max = 300): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}${ELLIPSIS}` : flat;
}

/** Shorter fragments would redact ordinary words; a credential is longer than this. */
const MIN_SECRET_LENGTH = 4;

export class Redactor {
  private readonly needles: readonly string[];

  constructor(secretValues: Iterable<string>) {
    const needles = new Set<string>();
    for (const value of secretValues) {
      for (const form of secretForms(value)) if (form.length >= MIN_SECRET_LENGTH) needles.add(form);
    }
    // Longest first, so "Bearer abc" is replaced whole before "abc" alone.
    this.needles = [...needles].sort((a, b) => b.length - a.length);
  }

  text(s: string): string {
    let out = s;
    for (const needle of this.needles) out = out.split(needle).join(REDACTED);
    // Details are cut to one bounded line, and a cut can fall inside an echoed secret: the head of a
    // secret right before the ellipsis is as secret as the whole.
    if (out.includes(ELLIPSIS)) {
      for (const needle of this.needles) {
        for (let k = needle.length - 1; k >= MIN_SECRET_LENGTH; k--) {
          const head = needle.slice(0, k) + ELLIPSIS;
          if (out.includes(head)) out = out.split(head).join(REDACTED + ELLIPSIS);
        }
      }
    }
    return out;
  }

  /**
   * Deep copy of a JSON-like value with every string leaf redacted: the structure, numbers, booleans and
   * keys stay as they are. `keys: true` redacts keys too, for a map keyed by what a server sent (tool
   * names); never for our own records, whose keys are our words.
   */
  value<T>(v: T, opts: { readonly keys?: boolean } = {}): T {
    if (typeof v === 'string') return this.text(v) as T;
    if (Array.isArray(v)) return v.map((x) => this.value(x, opts)) as T;
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [opts.keys ? this.text(k) : k, this.value(x, opts)])) as T;
    }
    return v;
  }
}

/**
 * Every value the canary was given that could be a credential: header values (and a Basic header's
 * decoded user:password), and in each URL the userinfo (refused at parse, but never trusted to be
 * absent), every query value (`?key=…`) but a flag's, any query key or path segment that looks like a
 * key. The Redactor is built from these before the first request, so whatever a server echoes is
 * covered. Over-redacting an ordinary query word is the safe way to be wrong; a flag's value (`true`,
 * `off`, a short number) is not: it would cut every `true` and every duration out of a detail, and it
 * is no credential. How a URL itself is shown is not the Redactor's job: shown-url.ts, by structure.
 */
export function secretsOf(t: {
  readonly headers?: Readonly<Record<string, string>>;
  readonly url?: string;
  readonly healthUrl?: string | undefined;
  readonly extra?: Iterable<string>;
}): string[] {
  const out = [...Object.values(t.headers ?? {}), ...(t.extra ?? [])];
  // Basic credentials are base64 on the wire; a server may echo them decoded ("user:password").
  for (const v of Object.values(t.headers ?? {})) {
    const basic = /^\s*basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(v)?.[1];
    if (!basic) continue;
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) out.push(decoded, decoded.slice(colon + 1));
  }
  for (const raw of [t.url, t.healthUrl]) {
    if (!raw) continue;
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      continue;
    }
    if (u.username) out.push(u.username, safeDecode(u.username));
    if (u.password) out.push(u.password, safeDecode(u.password));
    // A key in the path (`/mcp/sk-live-…/sse`, as some hosted servers issue them): a segment that
    // looks like a credential — long with letters and digits, or a key prefix — is secret too.
    for (const segment of u.pathname.split('/')) {
      const plain = safeDecode(segment);
      if (looksLikeCredential(plain)) out.push(segment, plain);
    }
    for (const [key, value] of u.searchParams) {
      if (looksLikeCredential(key)) out.push(key);
      if (!isFlagValue(value)) out.push(value);
    }
    // The raw (still percent-encoded) forms, as a server may echo the query string it received. Not the
    // whole query string: its keys would become secrets, and each value is masked where it stands.
    for (const pair of u.search.slice(1).split('&')) {
      const eq = pair.indexOf('=');
      if (eq >= 0 && !isFlagValue(safeDecode(pair.slice(eq + 1)))) out.push(pair.slice(eq + 1));
      else if (eq < 0 && looksLikeCredential(safeDecode(pair))) out.push(pair);
    }
  }
  return out.filter((v) => v.length > 0);
}

/**
 * A query value that switches something rather than proving who asks: a boolean word or a number of at
 * most six digits. Never a credential worth the name (a secret query value is given by reference,
 * `querySecrets`, and learned whatever its shape).
 */
function isFlagValue(value: string): boolean {
  return /^(true|false|yes|no|on|off|null|none)$/i.test(value) || /^-?\d{1,6}$/.test(value);
}

/** The forms a secret takes on the wire or in an echo: whole, its credential part, and URL-encoded. */
function secretForms(value: string): string[] {
  const trimmed = value.trim();
  const forms = [trimmed, encodeURIComponent(trimmed)];
  // "Bearer <token>", "Basic <b64>", "token=<x>": the credential part alone is the secret too.
  for (const part of trimmed.split(/[\s=]+/)) forms.push(part, encodeURIComponent(part));
  const scheme = /^(bearer|basic|token|apikey)$/i;
  return forms.filter((f) => !scheme.test(f));
}

/**
 * Libraries the engine uses print to the console with server-supplied text in it (the MCP SDK warns
 * "excluding tool '<name>'" with the name the server sent). In the scheduled run that reaches the
 * logs, so while a run is judged its Redactor is active here and every console line passes through
 * every active Redactor before it is printed. Installed once, on first use; the console methods keep
 * their destinations (the CLI has already pointed them at stderr).
 */
const activeRedactors = new Set<Redactor>();
let consoleWrapped = false;

export function redactConsoleWhile<T>(redactor: Redactor, run: () => Promise<T>): Promise<T> {
  wrapConsoleOnce();
  activeRedactors.add(redactor);
  return run().finally(() => activeRedactors.delete(redactor));
}

function wrapConsoleOnce(): void {
  if (consoleWrapped) return;
  consoleWrapped = true;
  /* eslint-disable no-console -- this is where console output is made safe */
  for (const method of ['log', 'info', 'debug', 'warn', 'error'] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      if (activeRedactors.size === 0) return original(...args);
      let text = args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? `${a.name}: ${a.message}` : String(a))).join(' ');
      for (const r of activeRedactors) text = r.text(text);
      return original(text);
    };
  }
  /* eslint-enable no-console */
}

/** The credential fields of an OAuth answer: a token response (RFC 6749 §5.1, OIDC), a registration (RFC 7591 §3.2.1). */
export const OAUTH_SECRET_FIELDS = ['access_token', 'refresh_token', 'id_token', 'client_secret', 'registration_access_token'] as const;

/**
 * The secrets in an OAuth answer's JSON body, whatever else it holds: the Redactor learns them as the
 * answer arrives, before any library sees it (and whether or not the library keeps the field).
 */
export function oauthAnswerSecrets(body: unknown): string[] {
  if (body === null || typeof body !== 'object') return [];
  const b = body as Record<string, unknown>;
  return OAUTH_SECRET_FIELDS.flatMap((f) => (typeof b[f] === 'string' && b[f] ? [b[f]] : []));
}
