/**
 * `telemetry`: where the runs go as OpenTelemetry traces and metrics, over OTLP/HTTP (protobuf). Off
 * unless the fleet says so. Any collector (`endpoint`: the base URL, `/v1/traces` and `/v1/metrics`
 * appended as the OTLP spec says), or AWS's own OTLP endpoints, signed with SigV4:
 *
 *   telemetry: { otlp: {
 *     sigv4: { region: 'eu-west-1' },
 *     traces: { endpoint: 'https://xray.eu-west-1.amazonaws.com/v1/traces' },        // service xray
 *     metrics: { endpoint: 'https://monitoring.eu-west-1.amazonaws.com/v1/metrics' }, // service monitoring
 *   } }
 *
 * Header values (an API key) are secret references, read at run time like a target's `headerSecrets`;
 * the deployed function gets the settings below, references and all, never a value.
 */
import * as z from 'zod';
import { configError } from '../../common/errors.ts';
import { regionProblem } from '../aws/regions.ts';
import { HeaderSecretRef } from './target.ts';
import { refineBy } from '../words/words.ts';

/** The export's own timeout when the config gives none: short, it is never worth a verdict. */
export const DEFAULT_EXPORT_TIMEOUT_MS = 2_000;
export const MAX_EXPORT_TIMEOUT_MS = 10_000;
/** The deployed function's copy of the settings (JSON): references only, never a secret value. */
export const TELEMETRY_ENV = 'MCP_CANARY_TELEMETRY';

/** AWS's OTLP hosts: `<service>.<region>.amazonaws.com` (`.com.cn` in China). */
const AWS_OTLP_HOST = /^(xray|monitoring|logs)\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/;
const LOOPBACK_HOST = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** https anywhere; http only on loopback (a collector beside the function, e.g. a Lambda extension on localhost:4318). */
function endpointProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL: give the collector\'s OTLP/HTTP address, e.g. "https://otel.example.com:4318"';
  }
  if (url.username || url.password) return 'carries credentials in the URL: put them in `headers` as a secret reference instead';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_HOST.test(url.hostname)) return null;
  return 'must be an https URL (http only to a collector on localhost)';
}

const endpoint = z.string().superRefine(refineBy(endpointProblem));
const SigV4 = z
  .object({
    /** @default - the region in the endpoint's AWS host */
    region: z
      .string()
      .superRefine(refineBy(regionProblem))
      .optional()
      .meta({ description: 'The signing region', defaultText: "the region in the endpoint's AWS host" }),
    /** The signing name: `xray` (traces), `monitoring` (metrics), `logs`. @default - from the endpoint's AWS host */
    service: z
      .string()
      .regex(/^[a-z0-9-]+$/, 'must be an AWS signing name such as "xray" or "monitoring"')
      .optional()
      .meta({
        description: 'The signing name: `xray` (traces), `monitoring` (metrics), `logs`',
        defaultText: "from the endpoint's AWS host",
      }),
  })
  .strict();
const Signal = z
  .object({
    /** This signal's URL, used as it is. @default - `<otlp.endpoint>/v1/<signal>` */
    endpoint: endpoint.optional().meta({ description: "This signal's URL, used as it is", defaultText: '`<otlp.endpoint>/v1/<signal>`' }),
    /** @default - `otlp.sigv4` */
    sigv4: SigV4.optional().meta({ description: "This signal's own signing", defaultText: '`otlp.sigv4`' }),
    /** `false`: this signal is not exported. */
    enabled: z.boolean().default(true).meta({ description: '`false`: this signal is not exported' }),
  })
  .strict();

export const Telemetry = z
  .object({
    otlp: z
      .object({
        /** A collector's base URL: traces go to `<endpoint>/v1/traces`, metrics to `<endpoint>/v1/metrics`. */
        endpoint: endpoint.optional().meta({
          description:
            "A collector's base URL, https (http only to a collector on localhost): traces go to `<endpoint>/v1/traces`, metrics to `<endpoint>/v1/metrics`",
          defaultText: 'none',
        }),
        /** Traces: their own URL or signing, or `{ enabled: false }`. */
        traces: Signal.optional().meta({
          description: 'Traces: their own URL or signing, or `{ enabled: false }`',
          defaultText: 'to `endpoint`, as `otlp` signs',
        }),
        /** Metrics: their own URL or signing, or `{ enabled: false }`. */
        metrics: Signal.optional().meta({
          description: 'Metrics: their own URL or signing, or `{ enabled: false }`',
          defaultText: 'to `endpoint`, as `otlp` signs',
        }),
        /** Header → secret reference (an API key), sent on every export. */
        headers: z.record(z.string().regex(headerName, 'is not a valid HTTP header name'), HeaderSecretRef).default({}).meta({
          description:
            'Header → secret reference (an API key), sent on every export; by name under `mcp-canary/` (SSM `/mcp-canary/`), never an ARN, since each probe region reads its own',
        }),
        /** Sign every export with the function's AWS credentials (AWS's OTLP endpoints). */
        sigv4: SigV4.optional().meta({
          description: "Sign every export with the function's AWS credentials, for AWS's OTLP endpoints (X-Ray traces, CloudWatch metrics)",
          defaultText: 'none: unsigned',
        }),
        /** The export's own timeout, cut further to what is left of the invocation. */
        timeoutMs: z
          .number()
          .int()
          .min(100)
          .max(MAX_EXPORT_TIMEOUT_MS, `must be at most ${MAX_EXPORT_TIMEOUT_MS}`)
          .default(DEFAULT_EXPORT_TIMEOUT_MS)
          .meta({
            description:
              "The export's own timeout, cut further to what is left of the invocation; a collector that misses it is one log line, never a changed verdict",
          }),
      })
      .strict()
      .superRefine((o, ctx) => {
        for (const issue of settingsProblems(o)) ctx.addIssue({ code: 'custom', ...issue });
      })
      .meta({ description: 'OTLP/HTTP (protobuf): one export per signal per invocation, beside the CloudWatch publish' }),
  })
  .strict();
export type TelemetryInput = z.input<typeof Telemetry>;
export type Telemetry = z.output<typeof Telemetry>;
type Otlp = Telemetry['otlp'];

/** One signal's destination, resolved: the URL as sent, and how it is signed. */
export interface ExportTarget {
  readonly url: string;
  readonly sigv4?: { readonly region: string; readonly service: string };
}

/** What the function needs to export: resolved destinations, header references, the timeout. */
export interface TelemetrySettings {
  readonly traces?: ExportTarget;
  readonly metrics?: ExportTarget;
  readonly headers: Record<string, HeaderSecretRef>;
  readonly timeoutMs: number;
}

type SignalName = 'traces' | 'metrics';
interface Destination {
  readonly url: string;
  readonly sigv4: z.output<typeof SigV4> | undefined;
  /** Where the URL and the signing came from, for messages. */
  readonly urlAt: PropertyKey[];
  readonly sigv4At: PropertyKey[];
}
/** A signal's destination; null when turned off, undefined when no URL is given for it. */
function destination(o: Otlp, signal: SignalName): Destination | null | undefined {
  const own = o[signal];
  if (own?.enabled === false) return null;
  const url = own?.endpoint ?? (o.endpoint ? `${o.endpoint.replace(/\/+$/, '')}/v1/${signal}` : undefined);
  if (!url) return undefined;
  return {
    url,
    sigv4: own?.sigv4 ?? o.sigv4,
    urlAt: own?.endpoint ? [signal, 'endpoint'] : ['endpoint'],
    sigv4At: own?.sigv4 ? [signal, 'sigv4'] : ['sigv4'],
  };
}

/**
 * The function reads telemetry headers by name in each probe region, under the prefix its role may read
 * (infra/plan/secret-scope.ts: `mcp-canary/`, SSM `/mcp-canary/`); an ARN would need a grant of its own.
 */
function headerRefProblem(ref: HeaderSecretRef): string | null {
  const id = 'secretsManager' in ref ? ref.secretsManager : ref.ssmParameter;
  if (id.startsWith('arn:')) return 'is an ARN: give the name instead (it is read in each probe region), e.g. "mcp-canary/otel-api-key"';
  const prefix = 'secretsManager' in ref ? 'mcp-canary/' : '/mcp-canary/';
  return id.startsWith(prefix) ? null : `must be named under ${prefix} (the run role reads only those), e.g. "${prefix}otel-api-key"`;
}

function settingsProblems(o: Otlp): Array<{ path: PropertyKey[]; message: string }> {
  const problems: Array<{ path: PropertyKey[]; message: string }> = [];
  for (const [name, ref] of Object.entries(o.headers)) {
    const why = headerRefProblem(ref);
    if (why) problems.push({ path: ['headers', name, 'secretsManager' in ref ? 'secretsManager' : 'ssmParameter'], message: why });
  }
  const authorization = Object.keys(o.headers).some((h) => h.toLowerCase() === 'authorization');
  let any = false;
  for (const signal of ['traces', 'metrics'] as const) {
    const d = destination(o, signal);
    if (d === undefined && o[signal])
      problems.push({ path: [signal, 'endpoint'], message: "is required: give this signal's URL, or `endpoint` (a collector) for both" });
    if (!d) continue;
    any = true;
    // A URL its own field refused is named there already (zod still runs this check).
    if (!URL.canParse(d.url)) continue;
    const aws = AWS_OTLP_HOST.exec(new URL(d.url).hostname);
    if (d.sigv4) {
      if (authorization) problems.push({ path: ['headers'], message: 'has an Authorization header and sigv4 signs it too: keep one' });
      if (!d.sigv4.service && !aws)
        problems.push({
          path: [...d.sigv4At, 'service'],
          message: 'is required: the endpoint is not an AWS OTLP host, so give the signing name (e.g. "xray")',
        });
      if (!d.sigv4.region && !aws)
        problems.push({ path: [...d.sigv4At, 'region'], message: 'is required: the endpoint is not an AWS OTLP host, so give the region' });
    } else if (aws && !authorization) {
      problems.push({
        path: d.urlAt,
        message: `is AWS's OTLP endpoint, which wants signed requests: add sigv4: {} (service ${aws[1]}, region ${aws[2]}) or an Authorization header (an API key)`,
      });
    }
  }
  if (!any && !problems.length)
    problems.push({ path: [], message: 'sends nothing: give `endpoint` (a collector) or `traces` / `metrics` endpoints' });
  return problems;
}

/** The settings the function reads, from a valid `telemetry`; undefined when none. */
export function telemetrySettings(t: Telemetry | undefined): TelemetrySettings | undefined {
  if (!t) return undefined;
  const resolve = (signal: SignalName): ExportTarget | undefined => {
    const d = destination(t.otlp, signal);
    if (!d) return undefined;
    if (!d.sigv4) return { url: d.url };
    const aws = AWS_OTLP_HOST.exec(new URL(d.url).hostname);
    return { url: d.url, sigv4: { region: d.sigv4.region ?? aws![2]!, service: d.sigv4.service ?? aws![1]! } };
  };
  const traces = resolve('traces');
  const metrics = resolve('metrics');
  return { ...(traces ? { traces } : {}), ...(metrics ? { metrics } : {}), headers: t.otlp.headers, timeoutMs: t.otlp.timeoutMs };
}

const Target = z.object({ url: z.string(), sigv4: z.object({ region: z.string(), service: z.string() }).strict().optional() }).strict();
const Settings = z
  .object({ traces: Target.optional(), metrics: Target.optional(), headers: z.record(z.string(), HeaderSecretRef), timeoutMs: z.number() })
  .strict();

/** The deployed function's settings, from its environment; undefined (export off) when unset. */
export function readTelemetryEnv(env: NodeJS.ProcessEnv = process.env): TelemetrySettings | undefined {
  const text = env[TELEMETRY_ENV]?.trim();
  if (!text) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw configError(`Environment variable ${TELEMETRY_ENV} is not JSON: redeploy the fleet (cdk deploy) or unset it to turn export off.`);
  }
  const settings = Settings.safeParse(parsed);
  if (!settings.success)
    throw configError(`Environment variable ${TELEMETRY_ENV} is not telemetry settings: redeploy the fleet (cdk deploy) or unset it.`);
  return settings.data;
}
