/**
 * The target schema: one MCP endpoint and how to judge it. The single source of truth for the CLI,
 * the scheduled Lambda run and the CDK app. Defaults live here, as named constants.
 */
// The namespace import, not `{ z }`: esbuild then keeps only what is used (zod's locales alone are 264 KB).
import * as z from 'zod';
import { BackendsSetting, checkBackends, type Backend } from './backends.ts';
import { CanaryTool } from './canary-tool.ts';
import { CatalogSetting } from './catalog.ts';
import { checkFlow, FlowSetting, type FlowStep } from './flow.ts';
import { PostureSetting } from './posture.ts';
import { secretsManagerName, ssmParameterName } from './stored-ref.ts';
import { authFields, checkAuth } from './oauth.ts';
import { TlsSetting } from './tls.ts';
import { unionError } from '../words/words.ts';

export { CanaryTool };

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_BUDGET_MS = 30_000;
export const DEFAULT_DEGRADED_MS = 5_000;
export const MAX_RETRIES = 3;

/** `auto` probes 2026-07-28 first and falls back to 2025-11-25; a pinned revision never falls back. */
// No message of its own: the project's error map names the values, what was given and the nearest one.
export const RevisionSetting = z.enum(['auto', '2026-07-28', '2025-11-25']);

const httpUrl = z.string().superRefine((s, ctx) => {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    u = new URL('invalid:');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    // A URL with a password that does not parse is not echoed either: it may still hold the password.
    const shown = /\/\/[^/@]*@/.test(s) ? '(not shown: it has an "@" before the host)' : JSON.stringify(s);
    ctx.addIssue({
      code: 'custom',
      message: `is not an http(s) URL: got ${shown}. Give the full URL with its scheme, e.g. https://mcp.example.com/mcp`,
    });
    return;
  }
  // fetch refuses a URL with credentials, and its message would print them: refuse it here, never echo
  // it, and say where credentials belong. (Basic auth is a header like any other.)
  if (u.username !== '' || u.password !== '') {
    ctx.addIssue({
      code: 'custom',
      message:
        // No example words that a secret could contain: the Redactor would cut them out of the advice.
        'carries credentials before its host (…@), which the canary never sends in a URL: put credentials in a header instead, e.g. --header "Authorization: Basic …" (headers are never printed)',
    });
  }
});

/**
 * The name a target gets from its URL when none is given: the host, in the characters a name allows.
 * An IPv6 literal ("[2001:db8::1]") becomes "ipv6-2001-db8-1": brackets and colons are not name
 * characters, and a name must start with a letter or digit.
 */
export function nameFromUrl(url: string): string {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return 'target';
  }
  const ipv6 = host.startsWith('[') && host.endsWith(']');
  const flat = (ipv6 ? host.slice(1, -1) : host).replace(/[^A-Za-z0-9_.]+/g, '-').replace(/^[^A-Za-z0-9]+|-+$/g, '');
  const name = (ipv6 ? `ipv6-${flat}` : flat).slice(0, 64).replace(/[^A-Za-z0-9]+$/, '');
  return name || 'target';
}

/**
 * A header value is sent as bytes: fetch refuses a character above U+00FF (a pasted en dash or smart
 * quote) and a CR or LF would split the header. That is the canary's own config mistake, so it is a
 * config error naming the header (never its value) rather than a failed run that pages the endpoint's
 * owner. The position tells the user where to look without printing the secret.
 */
export function headerValueProblem(value: string): string | null {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0x0d || c === 0x0a || c === 0) return `has a line break or NUL at character ${i + 1}: a header value is one line`;
    if (c > 0xff) {
      const cp = value.codePointAt(i)!.toString(16).toUpperCase().padStart(4, '0');
      return `has a character outside Latin-1 at character ${i + 1} (U+${cp}, e.g. a pasted dash or quote): retype it in plain ASCII`;
    }
  }
  return null;
}

const headerValue = z.string().superRefine((v, ctx) => {
  const problem = headerValueProblem(v);
  if (problem) ctx.addIssue({ code: 'custom', message: `value ${problem}` });
});

const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Where a header's value comes from at run time, instead of the config file (for the Lambda). */
export const HeaderSecretRef = z.union(
  [
    z
      .object({
        secretsManager: secretsManagerName('mcp-canary/my-target'),
        /** When the secret is a JSON object, the key whose value to use. */
        jsonKey: z.string().optional(),
        /** Prepended to the secret, e.g. "Bearer ". */
        prefix: z.string().optional(),
      })
      .strict(),
    z
      .object({
        ssmParameter: ssmParameterName('/mcp-canary/my-target/api-key'),
        prefix: z.string().optional(),
      })
      .strict(),
  ],
  { error: unionError('must be { secretsManager: "<arn or name>" } or { ssmParameter: "<name>" }') },
);
export type HeaderSecretRef = z.infer<typeof HeaderSecretRef>;

/** The target's fields; `Target` adds the cross-field checks. Extend this, not `Target`. */
export const TargetFields = z
  .object({
    /** Names the target in metrics, alarms and pages: stable, short, no spaces. */
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'must be 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit')
      .meta({
        description:
          'Names the target in metrics, alarms and pages: 1–64 letters, digits, `.`, `_` or `-`, starting with a letter or digit; unique in the fleet',
      }),
    url: httpUrl.meta({
      description: 'The MCP endpoint, http(s). Credentials in the URL (`user:pass@`) are refused: put them in a header',
    }),
    /** Sent on every request. Values are secrets: never printed, logged or published. */
    headers: z.record(z.string().regex(headerName, 'is not a valid HTTP header name'), headerValue).default({}).meta({
      description:
        'Static header values, sent on every request and never printed, logged or published. For the CLI: `cdk synth` refuses them, since they would land in the template in clear text',
    }),
    /** Header values read at run time from Secrets Manager or SSM (the scheduled run). */
    headerSecrets: z.record(z.string().regex(headerName, 'is not a valid HTTP header name'), HeaderSecretRef).default({}).meta({
      description:
        'Header values read at run time from Secrets Manager or SSM (deployed: named under `mcp-canary/`, SSM `/mcp-canary/`). The value sent is `prefix` + the secret (or its `jsonKey`), whitespace trimmed; it replaces a static header of the same name',
    }),
    /** Query parameters whose values are read at run time, like headerSecrets (never in the config, the template or any output). */
    querySecrets: z.record(z.string().min(1, 'is an empty query key: name the parameter, e.g. "token"'), HeaderSecretRef).default({}).meta({
      description:
        'Query parameters whose values are read at run time from Secrets Manager or SSM, as `headerSecrets` are, e.g. `{ "token": { "secretsManager": "mcp-canary/docs/token" } }`: the run adds `?token=<value>` to `url` (`prefix` + the secret, or its `jsonKey`, whitespace trimmed), so the value is in no config file and no template. A key may not also be in `url`',
    }),
    healthUrl: httpUrl.optional().meta({
      description: 'A health path to GET first, 2xx expected: it proves a process listens, nothing more',
      defaultText: 'no health probe',
    }),
    revision: RevisionSetting.default('auto').meta({
      description:
        '`auto` asks 2026-07-28 `server/discover` first and falls back to exactly one 2025-11-25 `initialize`; a pinned revision never falls back',
    }),
    tool: CanaryTool.optional().meta({
      description: 'The canary tool: a cheap, read-only tool whose answer only a working endpoint (and upstream) can give',
      defaultText: 'none: stop after `tools/list`',
    }),
    /** Ordered steps instead of one tool (functions/base/config/schema/flow.ts). */
    flow: FlowSetting.optional().meta({
      description:
        "Ordered steps instead of one `tool`: `tools/call`, `resources/list`, `resources/read`, `prompts/list`, `prompts/get`, each with its own assertion; `extract` takes values from a step's answer for a later step (`${steps.<id>.<name>}`). See [flows](#flows)",
      defaultText: 'none',
    }),
    timeoutMs: z
      .number()
      .int()
      .min(100, 'must be at least 100 ms')
      .max(120_000, 'must be at most 120000 ms')
      .default(DEFAULT_TIMEOUT_MS)
      .meta({ description: 'Per request, headers and body alike; at most `budgetMs`' }),
    budgetMs: z
      .number()
      .int()
      .min(1_000, 'must be at least 1000 ms')
      .max(600_000, 'must be at most 600000 ms')
      .default(DEFAULT_BUDGET_MS)
      .meta({
        description:
          "The whole run: token step, attempts and retries. Deployed, its function's timeout (`budgetMs` + 13 s) must stay under the schedule's period",
      }),
    degradedMs: z
      .number()
      .int()
      .min(1, 'must be a positive number of ms')
      .default(DEFAULT_DEGRADED_MS)
      .meta({ description: 'A run that passed but took longer than this (its reported duration, token step included) is `degraded`' }),
    retries: z.number().int().min(0, 'must be 0 or more').max(MAX_RETRIES, `must be at most ${MAX_RETRIES}`).default(0).meta({
      description:
        'In-run retries: only after `unreachable`, `timeout` or a 5xx, 500 ms doubling to 4 s, and only while a whole attempt still fits the budget',
    }),
    /** An aggregating gateway's backends, each judged on its own (functions/base/config/schema/backends.ts). */
    backends: BackendsSetting.optional().meta({
      description:
        "The backends of an aggregating gateway, each `{ name, prefix, tool | flow, catalog }`: one run opens one session, lists once and judges each backend's tool or flow (named without the prefix), each with its own verdict `<gateway>/<backend>`, metric, page and ticket. See [gateways](#gateways)",
      defaultText: 'none',
    }),
    /** The recorded tool catalog (`mcp-canary snapshot`): drift from it is a `catalog_drift` warning. */
    catalog: CatalogSetting.optional().meta({
      description:
        "The recorded tool catalog, as `mcp-canary snapshot` prints it: every run's `tools/list` is compared with it, and drift is a `catalog_drift` warning",
      defaultText: 'none: no drift check',
    }),
    /** Security posture checks, at most hourly: `true` for all, or a list of check names. */
    posture: PostureSetting.optional().meta({
      description:
        'Security posture checks, at most hourly: `true` for every check, or a list of check names. A failed check is a `posture` warning, never a failure',
      defaultText: 'off',
    }),
    /** A client certificate and private CAs, by reference (functions/base/config/schema/tls.ts). */
    tls: TlsSetting.optional().meta({
      description:
        "A client certificate for mutual TLS, and private CAs, each by reference; `file` references are for the CLI (`cdk synth` refuses them). Checked before the first request: a PEM that is not a certificate, a key that is not the certificate's, an expired certificate or a wrong passphrase is a config error naming the field; the certificate's expiry within `credentialWarningDays` is a `credential_expiry` warning",
      defaultText: 'none',
    }),
    /** OAuth client credentials, certWarningDays, credentialWarningDays (functions/base/config/schema/oauth.ts). */
    ...authFields,
  })
  .strict();

export function checkTarget(
  t: {
    timeoutMs: number;
    budgetMs: number;
    url: string;
    querySecrets: Record<string, unknown>;
    tool?: unknown;
    flow?: readonly FlowStep[] | undefined;
    backends?: readonly Backend[] | undefined;
  } & Parameters<typeof checkAuth>[0],
  ctx: z.RefinementCtx,
): void {
  checkAuth(t, ctx);
  const inUrl = URL.canParse(t.url) ? new URL(t.url).searchParams : new URLSearchParams();
  for (const key of Object.keys(t.querySecrets)) {
    if (!inUrl.has(key)) continue;
    ctx.addIssue({
      code: 'custom',
      path: ['querySecrets', key],
      // The value in the url is never echoed: it may be the very secret this field exists to hold.
      message: `is also in url's query (?${key}=…): give it in one place, querySecrets, and remove it from url`,
    });
  }
  if (t.tool !== undefined && t.flow !== undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['flow'],
      message:
        'and tool are both given: a target has one tool or a flow; make the tool the flow\'s first step ({ "kind": "tools/call", … })',
    });
  // A gateway's budget holds its own steps and its backends' together: checked once, in checkBackends.
  if (t.flow) checkFlow(t.flow, t.timeoutMs, t.backends ? Number.POSITIVE_INFINITY : t.budgetMs, ctx);
  if (t.backends) checkBackends(t.backends, t.flow?.length ?? (t.tool ? 1 : 0), t.timeoutMs, t.budgetMs, ctx);
  if (t.timeoutMs > t.budgetMs) {
    ctx.addIssue({
      code: 'custom',
      path: ['timeoutMs'],
      message: `(${t.timeoutMs}) is longer than the run budget, budgetMs (${t.budgetMs}): lower it or raise the budget (--budget-ms)`,
    });
  }
}

export const Target = TargetFields.superRefine(checkTarget);

/** The steps a target runs after tools/list: its flow, or its one canary tool as a one-step flow, or none. */
export function flowOf(t: {
  readonly tool?: z.output<typeof CanaryTool> | undefined;
  readonly flow?: readonly FlowStep[] | undefined;
}): FlowStep[] {
  if (t.flow) return [...t.flow];
  if (t.tool) return [{ kind: 'tools/call', ...t.tool, extract: {} }];
  return [];
}

export type TargetInput = z.input<typeof Target>;
export type Target = z.output<typeof Target>;

/**
 * The URL a run sends to: `url` with each `querySecrets` value (read at run time) added as a query
 * parameter, after the ones `url` holds. The only place the two meet; the result is never shown
 * (shown-url.ts masks every query value anyway).
 */
export function urlWithQuery(url: string, values: Readonly<Record<string, string>>): string {
  const entries = Object.entries(values);
  if (entries.length === 0) return url;
  const u = new URL(url);
  // Appended to the query as written, not through searchParams: that would re-encode the whole query
  // (a bare `?flag` would become `flag=`, `%20` a `+`), and the server would be asked something else.
  const added = entries.map(([key, value]) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`).join('&');
  u.search = u.search.length > 1 ? `${u.search.slice(1)}&${added}` : added;
  return u.href;
}
