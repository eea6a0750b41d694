/**
 * The proxy's CONNECT that failed below HTTP, renamed so that undici ends the request (reach.ts wraps the
 * proxy connection with it) and proxy-words.ts can name the proxy. Imports only the error family:
 * reach.ts and proxy-words.ts both use it.
 */
import { CanaryError, CanaryErrorCode } from '../common/errors.ts';

/**
 * An error of the CONNECT request to the proxy, renamed: the proxy closed the connection (UND_ERR_SOCKET,
 * which undici would retry at once, without end) or answered something that is not HTTP. Other errors
 * (a refused connection, the request's own abort) pass unchanged. The new code is not one undici retries.
 */
export function tunnelError(e: unknown): unknown {
  const code = (e as { code?: unknown }).code;
  const notHttp = (e as Error).name === 'HTTPParserError' || (typeof code === 'string' && code.startsWith('HPE_'));
  if (code !== 'UND_ERR_SOCKET' && !notHttp) return e;
  return tunnelFailed(notHttp ? 'answered CONNECT with something that is not HTTP' : 'closed the connection without answering CONNECT', e);
}

/** A request the timeout ended while its CONNECT was still unanswered: the proxy's silence, renamed the same way. */
export function tunnelSilent(e: unknown, timeoutMs: number): CanaryError<typeof CanaryErrorCode.proxyTunnel> {
  return tunnelFailed(`did not answer CONNECT within the request timeout (${timeoutMs} ms)`, e);
}

function tunnelFailed(what: string, cause: unknown): CanaryError<typeof CanaryErrorCode.proxyTunnel> {
  return new CanaryError(CanaryErrorCode.proxyTunnel, `the proxy ${what}`, { what }, { cause });
}
