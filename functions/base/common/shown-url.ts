/**
 * The one way a URL the user gave is shown anywhere it leaves the canary: the CLI (human and `--json`),
 * run records, alarm names and descriptions, pages and briefs, the status page and reports, telemetry's
 * `url.full`. Built from the URL's structure, never by replacing text: scheme, host and port as given;
 * the path with any segment that looks like a key masked; every query key kept, in order, with its value
 * masked; userinfo masked; the fragment dropped (a browser never sends it; some put tokens there).
 *
 *   https://u:p@mcp.example.com:8443/mcp/sk-live-4f9a2c7e?read_only=true&token=abc&flag#x
 *   → https://***@mcp.example.com:8443/mcp/***?read_only=***&token=***&flag
 *
 * A shown URL is for reading, not for running: a user reproduces a run with the URL they hold.
 */

/** What stands for a masked part of a URL: not a character a URL's own text would hold unescaped there. */
export const URL_MASK = '***';

/**
 * A path segment or a query key that looks like a credential (some hosted servers issue a key in the
 * path, `/mcp/sk-live-…/sse`, or as a bare query flag): long with letters and digits, or a key prefix.
 * The Redactor learns the same segments as secrets (redact.ts `secretsOf`).
 */
export function looksLikeCredential(segment: string): boolean {
  if (/^(sk|pk|ak|rk|key|tok|token|api|secret)[-_]/i.test(segment) && segment.length >= 8) return true;
  return segment.length >= 16 && /[0-9]/.test(segment) && /[A-Za-z]/.test(segment);
}

/** Query keys that name a credential, as APIs spell them (`?token=`, `?api_key=`, `?sig=`). */
const CREDENTIAL_KEY =
  /^(access[-_]?token|token|api[-_]?key|apikey|key|secret|client[-_]?secret|password|passwd|pwd|sig|signature|auth|jwt|session[-_]?id)$/i;

/**
 * The query keys of `url` whose value is a credential: the key names one, or the value looks like one.
 * Such a value belongs in `querySecrets` (synth refuses it in `url`; `init` moves it there); an ordinary
 * parameter (`?read_only=true`) stays in the url, and is masked wherever the url is shown.
 */
export function credentialQueryKeys(url: string): string[] {
  if (!URL.canParse(url)) return [];
  const keys = new Set<string>();
  for (const [key, value] of new URL(url).searchParams)
    if (value !== '' && (CREDENTIAL_KEY.test(key) || looksLikeCredential(value))) keys.add(key);
  return [...keys];
}

/** The first of `credentialQueryKeys`, if any. */
export function credentialInQuery(url: string): string | undefined {
  return credentialQueryKeys(url)[0];
}

/** `decodeURIComponent`, or the text as it is when it is not valid percent-encoding. */
export function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The shown form of `raw`. Text that does not parse as a URL is shown as the mask alone: its structure
 * is unknown, so no part of it can be shown safely (the config schema refuses such a URL before a run).
 */
export function shownUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return URL_MASK;
  }
  const userinfo = u.username !== '' || u.password !== '' ? `${URL_MASK}@` : '';
  // An opaque URL (`mailto:`, `data:`) has no host or path segments to keep: nothing of it is shown.
  if (!u.host && u.protocol !== 'file:') return `${u.protocol}${URL_MASK}`;
  const path = u.pathname
    .split('/')
    .map((segment) => (looksLikeCredential(safeDecode(segment)) ? URL_MASK : segment))
    .join('/');
  return `${u.protocol}//${userinfo}${u.host}${path}${shownQuery(u.search)}`;
}

/**
 * `?a=1&b&c=` → `?a=***&b&c=`: each key as the URL holds it (percent-encoded), a value masked when
 * there is one (an empty value has nothing to hide, and `c=` and `c` mean different things to servers).
 * A key that looks like a credential (a bare `?sk-live-…` flag) is masked too. Empty pairs (`&&`) are left out.
 */
function shownQuery(search: string): string {
  if (search.length <= 1) return '';
  const pairs = search
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const key = eq < 0 ? pair : pair.slice(0, eq);
      const shownKey = looksLikeCredential(safeDecode(key.replace(/\+/g, ' '))) ? URL_MASK : key;
      if (eq < 0) return shownKey;
      return eq === pair.length - 1 ? `${shownKey}=` : `${shownKey}=${URL_MASK}`;
    });
  return pairs.length ? `?${pairs.join('&')}` : '';
}
