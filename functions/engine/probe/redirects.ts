/**
 * Pure: a redirect the canary did not (or could no longer) follow, in words that give the fix — each
 * hop's `Location`, counted right. The SDK follows a redirect only when it keeps the method (a 307 or
 * 308, or any on GET) and stays within the endpoint's origin, at most five times; the canary's POSTs
 * therefore stop at:
 * - a 301/302/303 within the origin (a trailing-slash redirect): a POST would become a GET there, so no
 *   MCP client can follow it; the URL to configure is its Location — one redirect, not a loop;
 * - a redirect to another origin: never followed, so the credentials stay home;
 * - the SDK's hop limit: a loop when a Location repeats, else too many hops.
 */
import type { Fault } from '../../base/common/step.ts';
import { FailureClass } from '../../base/common/verdict.ts';
import type { Exchange } from '../../base/net/exchange.ts';

/** `a → b → c`, shortened in the middle past six hops. */
function chain(urls: readonly string[]): string {
  const shown = urls.length > 6 ? [...urls.slice(0, 3), '…', ...urls.slice(-2)] : urls;
  return shown.join(' → ');
}

export function redirectFault(what: string, status: number, x: Exchange | undefined): Fault {
  const base = { failure: FailureClass.httpStatus, retryable: false, status } as const;
  const to = x?.location ?? null;
  const hops = [...(x?.hops ?? []), ...(to ? [to] : [])];
  const redirects = Math.max(1, hops.length - 1);
  if (!to) return { ...base, detail: `${what}: HTTP ${status} redirect without a Location — nothing to follow` };
  if (!x?.redirectSameOrigin) {
    return {
      ...base,
      detail: `${what}: HTTP ${status} redirect to ${to} not followed (another origin: the canary stays on the endpoint's origin, so its credentials never leave it) — if that is the intended server, configure that URL${redirects > 1 ? `; ${redirects} redirects: ${chain(hops)}` : ''}`,
    };
  }
  const keepsMethod = status === 307 || status === 308 || x.httpMethod === 'GET';
  if (!keepsMethod) {
    return {
      ...base,
      detail: `${what}: HTTP ${status} redirect to ${to} not followed: a ${status} would turn the ${x.httpMethod} into a GET, so no MCP client can follow it (a trailing-slash redirect?) — configure ${to} as the URL${redirects > 1 ? `; ${redirects} redirects: ${chain(hops)}` : ''}`,
    };
  }
  const loop = hops.slice(0, -1).includes(to);
  return {
    ...base,
    detail: `${what}: ${redirects} redirects within the endpoint's own origin never reached an answer (${loop ? 'a redirect loop' : 'too many redirects'}): ${chain(hops)} — fix the server's redirects or configure the final URL`,
  };
}
