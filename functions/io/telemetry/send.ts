/**
 * One OTLP/HTTP protobuf export: the headers (the configured ones, read from their secret references
 * by the caller), the SigV4 signature when the destination asks for it (AWS's OTLP endpoints, with the
 * function's own credentials and the AWS SDK's signer), and one POST through functions/base/net with the
 * export's timeout. Never throws; the outcome is words without a header, a query or a credential.
 */
import { Sha256 } from '@smithy/core/checksum';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, Provider } from '@smithy/types';
import type { FetchLike } from '../../base/common/run-context.ts';
import type { ExportTarget } from '../../base/config/schema/telemetry.ts';
import { postBytes, type PostOutcome } from '../../base/net/post.ts';

export const OTLP_PROTOBUF = 'application/x-protobuf';

export interface SendDeps {
  /** The function's AWS credentials (the SDK clients' own provider chain). Needed only for sigv4. */
  readonly credentials?: Provider<AwsCredentialIdentity> | undefined;
  /** A test's fetch. @default - Node's, on a pool of the export's own */
  readonly fetch?: FetchLike | undefined;
}

/** What happened to one signal's export, in words fit for a log line. */
export type SendResult = { readonly ok: true } | { readonly ok: false; readonly why: string };

export async function sendOtlp(
  to: ExportTarget,
  body: Uint8Array,
  headers: Record<string, string>,
  timeoutMs: number,
  deps: SendDeps,
): Promise<SendResult> {
  const url = new URL(to.url);
  let sent: Record<string, string> = { ...headers, 'content-type': OTLP_PROTOBUF };
  if (to.sigv4) {
    if (!deps.credentials) return { ok: false, why: 'sigv4 is configured but the function has no AWS credentials provider' };
    try {
      sent = await sign(url, sent, body, to.sigv4, deps.credentials);
    } catch (e) {
      return { ok: false, why: `could not sign (${e instanceof Error ? e.name : 'error'}): check the function's AWS credentials` };
    }
  }
  return words(await postBytes(url.href, sent, body, timeoutMs, deps.fetch), timeoutMs);
}

async function sign(
  url: URL,
  headers: Record<string, string>,
  body: Uint8Array,
  by: NonNullable<ExportTarget['sigv4']>,
  credentials: Provider<AwsCredentialIdentity>,
): Promise<Record<string, string>> {
  const signer = new SignatureV4({ credentials, region: by.region, service: by.service, sha256: Sha256 });
  const query: Record<string, string> = {};
  url.searchParams.forEach((value, key) => (query[key] = value));
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query,
    headers: { ...headers, host: url.host },
    body,
  });
  // fetch sets Host itself (and refuses to be told): the signed value is the URL's own host.
  const { host: _host, ...rest } = signed.headers;
  return rest;
}

function words(o: PostOutcome, timeoutMs: number): SendResult {
  if ('status' in o) {
    if (o.ok) return { ok: true };
    const hint =
      o.status === 429 || o.status === 503
        ? ' (throttled; the next batch will try again)'
        : o.status === 403
          ? ' (check the IAM permission or the API key)'
          : o.status >= 300 && o.status < 400
            ? ' (a redirect, not followed: the headers go only to the configured endpoint; set it to where the collector is)'
            : '';
    return { ok: false, why: `the collector answered HTTP ${o.status}${o.retryAfter ? `, Retry-After ${o.retryAfter}` : ''}${hint}` };
  }
  if (o.error === 'timeout') return { ok: false, why: `no answer within ${timeoutMs} ms (the export's timeout)` };
  return {
    ok: false,
    why: `${o.error === 'other' ? 'the request failed' : `the collector is ${o.error === 'tls' ? 'refusing TLS' : 'unreachable'}`} (${o.code})`,
  };
}
