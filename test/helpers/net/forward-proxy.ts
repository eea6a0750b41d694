/**
 * A real forward proxy (the `proxy` package from npm: HTTP CONNECT tunnels and plain HTTP proxying)
 * on 127.0.0.1, port 0. `credentials` makes it ask for Basic `user:password` (407 otherwise);
 * `connects` records every CONNECT target it was asked for, answered or refused, so a test can prove
 * a request did or did not pass through it.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProxy } from 'proxy';

export interface ForwardProxy {
  readonly url: string;
  readonly port: number;
  /** `host:port` of every CONNECT, in order. */
  readonly connects: string[];
  /** The URL of every plain HTTP request it was asked to forward, in order. */
  readonly forwarded: string[];
  close(): Promise<void>;
}

export async function startForwardProxy(o: { credentials?: string } = {}): Promise<ForwardProxy> {
  const server = createProxy(createServer());
  const connects: string[] = [];
  const forwarded: string[] = [];
  server.prependListener('connect', (req: { url?: string }) => connects.push(req.url ?? ''));
  server.prependListener('request', (req: { url?: string }) => forwarded.push(req.url ?? ''));
  if (o.credentials) {
    const expected = `Basic ${Buffer.from(o.credentials).toString('base64')}`;
    server.authenticate = (req) => req.headers['proxy-authorization'] === expected;
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    connects,
    forwarded,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
