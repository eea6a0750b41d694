/**
 * The run's side of the export: while targets are judged, each run's requests are logged (requests.ts)
 * and its redacted record joins the batch; after the verdicts, `flush` sends the batch once — one trace
 * export and one metrics export per invocation — under a timeout cut to what is left of the invocation.
 * It never throws and never changes a verdict; a failed export is one log line with no secret in it.
 * The OpenTelemetry SDK is imported here dynamically, so a fleet without telemetry never loads it.
 */
import type { RunRecord } from '../../base/common/run-record.ts';
import { Redactor } from '../../base/common/redact.ts';
import { shownUrl } from '../../base/common/shown-url.ts';
import type { TelemetrySettings } from '../../base/config/schema/telemetry.ts';
import type { BatchContext, ExportOutcome, RunTrace } from './export.ts';
import { RequestLog } from './requests.ts';

export const TELEMETRY_FAILED_MESSAGE = 'mcp-canary telemetry export failed';
/** Below this much time left, the export is not tried at all. */
export const MIN_EXPORT_MS = 100;

export interface TelemetryDeps extends Omit<BatchContext, 'headers'> {
  /** The configured headers' values and the secrets among them (for redaction), read from their references. */
  readonly readHeaders: () => Promise<{ readonly headers: Record<string, string>; readonly secretValues: readonly string[] }>;
  readonly log: (line: string) => void;
}

export class TelemetryBatch {
  private readonly runs: RunTrace[] = [];
  private readonly headers: ReturnType<TelemetryDeps['readHeaders']>;

  constructor(
    private readonly settings: TelemetrySettings,
    private readonly deps: TelemetryDeps,
  ) {
    // Read beside the judging, so the export never waits for its secrets.
    this.headers = deps.readHeaders();
    this.headers.catch(() => undefined);
  }

  /** A request log for one target's run. */
  requestLog(healthUrl?: string): RequestLog {
    return new RequestLog(healthUrl);
  }

  add(record: RunRecord, requests: RequestLog | undefined): void {
    this.runs.push({ record, requests: requests?.records ?? [] });
  }

  /** Sends the batch within `remainingMs` (and the configured timeout). Never rejects. */
  async flush(remainingMs: number): Promise<ExportOutcome | undefined> {
    const timeoutMs = Math.min(this.settings.timeoutMs, remainingMs);
    let secretValues: readonly string[] = [];
    try {
      if (this.runs.length === 0) return undefined;
      if (timeoutMs < MIN_EXPORT_MS)
        return this.failed({ all: `not sent: ${Math.max(0, Math.round(remainingMs))} ms left in the invocation` }, []);
      // One deadline for the whole flush: the wait for the headers and the module come out of the export's time.
      const deadline = performance.now() + timeoutMs;
      const read = await within(this.headers, timeoutMs);
      if (read === undefined) return this.failed({ all: 'not sent: the telemetry headers were not read in time' }, []);
      secretValues = read.secretValues;
      const { exportBatch } = await loadExport();
      const leftMs = Math.round(deadline - performance.now());
      if (leftMs < MIN_EXPORT_MS)
        return this.failed({ all: `not sent: ${Math.max(0, leftMs)} ms left after reading the telemetry headers` }, secretValues);
      const outcome = await exportBatch(this.runs, this.settings, leftMs, { ...this.deps, headers: read.headers });
      const problems = Object.entries(outcome).filter(([, r]) => !r.ok) as Array<[string, { why: string }]>;
      if (problems.length > 0) this.failed(Object.fromEntries(problems.map(([signal, r]) => [signal, r.why])), secretValues);
      return outcome;
    } catch (e) {
      return this.failed({ all: `not sent: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}` }, secretValues);
    }
  }

  /** One line for the whole batch, naming where it went (origin and path only), never a header or query. */
  private failed(why: Record<string, string>, secretValues: readonly string[]): undefined {
    const where = (url: string | undefined) => (url ? shownUrl(url) : undefined);
    const line = {
      message: TELEMETRY_FAILED_MESSAGE,
      runs: this.runs.length,
      ...why,
      endpoints: [where(this.settings.traces?.url), where(this.settings.metrics?.url)].filter(Boolean),
    };
    this.deps.log(JSON.stringify(new Redactor(secretValues).value(line)));
    return undefined;
  }
}

/**
 * The built Lambda (and dist/lambda/run) carries the export as a file of its own beside index.mjs,
 * built from export.ts with the handler's options (infra/constructs/bundle.ts); from source (and tsc's
 * dist/functions) it is export.ts/.js beside this file. The specifier is computed so that esbuild leaves
 * the import alone instead of inlining the OpenTelemetry SDK into every run's cold start.
 */
export const TELEMETRY_EXPORT_FILE = 'telemetry-export.mjs';
function loadExport(): Promise<typeof import('./export.ts')> {
  const here = /\/telemetry\/batch\.(ts|js)$/.exec(import.meta.url);
  const spec = here ? `./export.${here[1]}` : `./${TELEMETRY_EXPORT_FILE}`;
  return import(spec) as Promise<typeof import('./export.ts')>;
}

function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(undefined), ms);
    p.then(
      (v) => (clearTimeout(t), resolve(v)),
      () => (clearTimeout(t), resolve(undefined)),
    );
  });
}
