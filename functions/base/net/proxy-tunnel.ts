/**
 * The proxy's CONNECT that failed below HTTP, renamed so that undici ends the request (reach.ts wraps the
 * proxy connection with it) and proxy-words.ts can name the proxy. No imports: reach.ts and
 * proxy-words.ts both use it.
 */
/** The code of an error the proxy's CONNECT ended in (reach.ts renames it so undici does not dial again). */
export const PROXY_TUNNEL_FAILED = 'MCP_CANARY_PROXY_TUNNEL_FAILED';

/**
 * An error of the CONNECT request to the proxy, renamed: the proxy closed the connection (UND_ERR_SOCKET,
 * which undici would retry at once, without end) or answered something that is not HTTP. Other errors
 * (a refused connection, the request's own abort) pass unchanged.
 */
export function tunnelError(e: unknown): unknown {
  const code = (e as { code?: unknown }).code;
  const notHttp = (e as Error).name === 'HTTPParserError' || (typeof code === 'string' && code.startsWith('HPE_'));
  if (code !== 'UND_ERR_SOCKET' && !notHttp) return e;
  const what = notHttp ? 'answered CONNECT with something that is not HTTP' : 'closed the connection without answering CONNECT';
  return Object.assign(new Error(`the proxy ${what}`, { cause: e }), { code: PROXY_TUNNEL_FAILED, what });
}

/** A request the timeout ended while its CONNECT was still unanswered: the proxy's silence, renamed the same way. */
export function tunnelSilent(e: unknown, timeoutMs: number): Error {
  const what = `did not answer CONNECT within the request timeout (${timeoutMs} ms)`;
  return Object.assign(new Error(`the proxy ${what}`, { cause: e }), { code: PROXY_TUNNEL_FAILED, what });
}
