/**
 * The loopback redirect of `mcp-canary login` (RFC 8252 §7.3, the MCP spec's native-client redirect):
 * an HTTP listener on 127.0.0.1 at a port the OS picks, for exactly one authorization response. The
 * literal address, never `localhost` (which may resolve to another interface or to ::1 only).
 */
import { createServer } from 'node:http';
import { CanaryError, CanaryErrorCode } from '../common/errors.ts';

export interface LoopbackCallback {
  /** `http://127.0.0.1:<port>/callback`: the redirect_uri. */
  readonly redirectUrl: string;
  /** The query of the first request to the callback path; rejects after `timeoutMs` (`CanaryError` CALLBACK_TIMEOUT). */
  wait(timeoutMs: number): Promise<URLSearchParams>;
  close(): Promise<void>;
}

const PAGE =
  '<!doctype html><meta charset="utf-8"><title>mcp-canary</title><p>mcp-canary: the answer reached the terminal. You can close this tab.';

export async function listenForCallback(path = '/callback'): Promise<LoopbackCallback> {
  let deliver: (q: URLSearchParams) => void = () => {};
  const first = new Promise<URLSearchParams>((resolve) => (deliver = resolve));
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || u.pathname !== path) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(PAGE);
    deliver(u.searchParams);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    redirectUrl: `http://127.0.0.1:${port}${path}`,
    wait: (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new CanaryError(CanaryErrorCode.callbackTimeout, `no answer reached ${path} within ${Math.round(timeoutMs / 1000)} s`, {
                path,
                waitedMs: timeoutMs,
              }),
            ),
          timeoutMs,
        );
      });
      return Promise.race([first, late]).finally(() => clearTimeout(timer));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
