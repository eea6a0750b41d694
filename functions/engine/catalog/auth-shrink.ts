/**
 * Pure: a catalog that shrank to authentication tools. When the credentials a server holds expire (the
 * canary's, or the server's own session with its upstream), some servers stop listing their tools and
 * list only the way back in: `authenticate`, `login`, `auth_status`, `start_oauth_flow`. The canary tool
 * then vanishes from `tools/list`, and "tool not listed" would send on-call to look for a renamed tool;
 * the evidence says it is `auth`.
 *
 * A tool reads like authentication by its name's words (`auth`, `login`, `oauth`, `sign in`, `api key`,
 * compounds such as `reauthenticate`; never `author`) or by a description that starts with the act
 * ("Authenticate with …", "Log in to …") or says authentication is required or has expired. The
 * catalog shrank to them when the canary tool is gone and:
 * - every other tool listed is housekeeping (`ping`, `whoami`, `get_server_info`, …); or
 * - a recorded catalog (`mcp-canary snapshot`) named the canary tool, the live one is smaller, and every
 *   tool in it that does not read like authentication was there before (nothing new but the way in).
 */
import { oneLine } from '../../base/common/redact.ts';
import { shownName } from '../../base/common/names.ts';
import type { ToolFingerprints } from '../../base/config/schema/catalog.ts';
import type { ToolShape } from './fingerprint.ts';

/** Words that make a tool's name read like authentication. */
const AUTH_WORDS = new Set([
  'auth',
  'authn',
  'authenticate',
  'authentication',
  'authorize',
  'authorise',
  'authorization',
  'authorisation',
  'login',
  'logon',
  'signin',
  'oauth',
  'reauth',
  'reauthenticate',
  'reauthorize',
  'credential',
  'credentials',
  'apikey',
  'sso',
]);
/** Two words that say it together (`log_in`, `sign-in`, `api_key`, `connect_account`, `OAuth`). */
const AUTH_PAIRS = [
  'log in',
  'sign in',
  'log on',
  'api key',
  'access token',
  'refresh token',
  'set token',
  'connect account',
  'link account',
  'o auth',
];
/** Inside one word with no separator (`startoauthflow`, `reauthenticateuser`, `dologin`). */
const AUTH_STEMS = ['authenticat', 'authoriz', 'authoris', 'oauth', 'login', 'signin', 'logon', 'reauth'];
/** Tools a server keeps listing without credentials that say nothing about its real catalog. */
const HOUSEKEEPING_WORDS = new Set(['ping', 'health', 'healthcheck', 'status', 'whoami', 'who', 'am', 'i', 'version', 'help', 'info']);
const HOUSEKEEPING_GLUE = new Set(['get', 'server', 'check', 'show', 'about', 'echo']);

/** A description that starts with the act of authenticating, or says authentication is needed or expired. */
const AUTH_DESCRIPTION = [
  /^\s*(?:(?:use|call) this(?: tool)? to |this tool )?(?:re-?)?(?:authenticate|authori[sz]e|log ?in|sign ?in|log on|connect (?:your|an?|the) (?:\w+ )?account|start (?:the |an? )?(?:oauth|authentication|login|sign-in))/i,
  /\b(?:authentication|authori[sz]ation|login|sign-in) (?:is )?required\b/i,
  /\bnot (?:yet )?(?:authenticated|logged in|signed in)\b/i,
  /\b(?:credentials?|token|session|api key) (?:has |have )?(?:expired|been revoked)\b/i,
];

/** The evidence: the tools that remain, and how much of a recorded catalog they replace. */
export interface ShrunkToAuth {
  readonly authTools: readonly string[];
  readonly others: readonly string[];
  /** How many tools the recorded catalog named, when it was compared. */
  readonly recorded: number | null;
}

/** The name's words: split at separators and case changes, lowercased. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

export function readsLikeAuth(tool: ToolShape): boolean {
  const words = nameWords(tool.name);
  const joined = words.join(' ');
  if (words.some((w) => AUTH_WORDS.has(w))) return true;
  if (AUTH_PAIRS.some((p) => ` ${joined} `.includes(` ${p} `))) return true;
  if (words.some((w) => AUTH_STEMS.some((s) => w.includes(s)))) return true;
  const description = typeof tool.description === 'string' ? tool.description.slice(0, 500) : '';
  return AUTH_DESCRIPTION.some((p) => p.test(description));
}

function housekeeping(tool: ToolShape): boolean {
  const words = nameWords(tool.name);
  return words.some((w) => HOUSEKEEPING_WORDS.has(w)) && words.every((w) => HOUSEKEEPING_WORDS.has(w) || HOUSEKEEPING_GLUE.has(w));
}

/**
 * The evidence when `live` (a tools/list that does not name `canaryTool`) shrank to authentication
 * tools, else null. `recorded` is the catalog recorded for this run's credential, when there is one.
 */
export function shrunkToAuth(live: readonly ToolShape[], recorded: ToolFingerprints | null, canaryTool: string): ShrunkToAuth | null {
  if (live.some((t) => t.name === canaryTool)) return null;
  const auth = live.filter(readsLikeAuth);
  if (auth.length === 0) return null;
  const others = live.filter((t) => !readsLikeAuth(t));
  const knew = recorded !== null && Object.hasOwn(recorded, canaryTool);
  const evidence = (compared: boolean): ShrunkToAuth => ({
    authTools: auth.map((t) => t.name),
    others: others.map((t) => t.name),
    recorded: compared && recorded ? Object.keys(recorded).length : null,
  });
  const shrank = knew && live.length < Object.keys(recorded).length && others.every((t) => Object.hasOwn(recorded, t.name));
  if (shrank) return evidence(true);
  if (others.every(housekeeping)) return evidence(knew);
  return null;
}

/** The failure's detail: which tools remained, against the recorded catalog when there is one. */
export function shrunkDetail(canaryTool: string, s: ShrunkToAuth): string {
  const list = (names: readonly string[]) =>
    names
      .slice(0, 6)
      .map((n) => shownName(oneLine(n, 60)))
      .join(', ') + (names.length > 6 ? ', …' : '');
  const beside = s.others.length > 0 ? `, beside ${list(s.others)}` : '';
  const total = s.authTools.length + s.others.length;
  const shrank = s.recorded !== null ? `; the catalog shrank from ${s.recorded} recorded tool(s) to ${total}` : '';
  return `tools/list: no tool named "${shownName(canaryTool)}": only authentication tools remain (${list(s.authTools)}${beside})${shrank} — the server hides its tools until it is authenticated again: the credentials the canary sends (or the server's own, upstream) expired or were refused`;
}
