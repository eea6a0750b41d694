/** The optional health path: proves a process listens, nothing more. 2xx expected. */
import type { ProbeResult } from '../common/verdict.ts';
import { classifyError, classifyStatus } from './classify.ts';
import type { Wire } from '../net/wire.ts';

/**
 * `headers` go along only when the health URL shares the MCP endpoint's origin: credentials meant for
 * the endpoint never travel to another host.
 */
export async function probeHealth(
  url: string,
  headers: Readonly<Record<string, string>>,
  wire: Wire,
  now: () => number,
): Promise<ProbeResult> {
  const started = now();
  const done = (r: Omit<ProbeResult, 'name' | 'durationMs'>): ProbeResult => ({ name: 'health', durationMs: now() - started, ...r });
  try {
    // Redirects are not followed: a health path that moves is worth seeing, and headers stay home.
    const res = await wire.fetch(url, { method: 'GET', redirect: 'manual', headers: { ...headers } });
    // A failed answer is read (bounded by the wire) for the server's own words; a good one is not needed.
    if (res.ok) await res.body?.cancel().catch(() => {});
    else await res.text().catch(() => '');
    if (res.status >= 200 && res.status < 300) return done({ ok: true, detail: `HTTP ${res.status}`, failure: null });
    const c = classifyStatus('health', res.status, wire.exchanges.at(-1));
    return done({
      ok: false,
      detail: res.status >= 300 && res.status < 400 ? `${c.detail} (redirect not followed)` : c.detail,
      failure: c.failure,
    });
  } catch (e) {
    const c = classifyError('health', e, wire.exchanges.at(-1));
    return done({ ok: false, detail: c.detail, failure: c.failure });
  }
}
