/** The optional health path: proves a process listens, nothing more. 2xx expected. */
import { faulted, passed, type StepResult } from '../../base/common/step.ts';
import { FailureClass } from '../../base/common/verdict.ts';
import type { Wire } from '../../base/net/wire.ts';
import { classifyError, classifyStatus } from './classify.ts';

/**
 * `headers` go along only when the health URL shares the MCP endpoint's origin: credentials meant for
 * the endpoint never travel to another host. Any failure but an auth wall or a TLS failure is worth
 * another attempt: a health path answers fast or not at all.
 */
export async function healthStep(url: string, headers: Readonly<Record<string, string>>, wire: Wire): Promise<StepResult<null>> {
  try {
    // Redirects are not followed: a health path that moves is worth seeing, and headers stay home.
    const res = await wire.fetch(url, { method: 'GET', redirect: 'manual', headers: { ...headers } });
    // A failed answer is read (bounded by the wire) for the server's own words; a good one is not needed.
    if (res.ok) await res.body?.cancel().catch(() => {});
    else await res.text().catch(() => '');
    if (res.status >= 200 && res.status < 300) return passed(null, `HTTP ${res.status}`);
    const c = classifyStatus('health', res.status, wire.exchanges.at(-1));
    const detail = res.status >= 300 && res.status < 400 ? `${c.detail} (redirect not followed)` : c.detail;
    return faulted({ ...c, detail, retryable: retryable(c.failure) });
  } catch (e) {
    const c = classifyError('health', e, wire.exchanges.at(-1));
    return faulted({ ...c, retryable: retryable(c.failure) });
  }
}

function retryable(failure: FailureClass | null): boolean {
  return failure !== FailureClass.auth && failure !== FailureClass.tls;
}
