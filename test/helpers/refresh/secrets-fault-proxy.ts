/**
 * An HTTP fault proxy in front of moto's Secrets Manager, for the failures AWS documents and a writer
 * must survive: `throttle` (400 ThrottlingException, nothing stored — the SDK retries it, up to its
 * max attempts), `land-then-drop` (the request reaches moto and is stored, then the connection is cut
 * before the answer: an ambiguous write, as a timeout after the write landed is), and `drop` (cut
 * before moto sees it: an ambiguous write that did not land). Faults are planned per operation and
 * secret, in call order; every call is recorded.
 */
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type SecretsFault = 'pass' | 'throttle' | 'land-then-drop' | 'drop';

export interface SecretsFaultProxy {
  readonly endpoint: string;
  /** `operation secretId` of each call, in order (e.g. `PutSecretValue mcp-canary/x`). */
  readonly calls: string[];
  /** The faults the next calls of `operation` on `secretId` meet, in order; then they pass. */
  plan(operation: string, secretId: string, faults: readonly SecretsFault[]): void;
  close(): Promise<void>;
}

export async function startSecretsFaultProxy(motoEndpoint: string): Promise<SecretsFaultProxy> {
  const target = new URL(motoEndpoint);
  const calls: string[] = [];
  const plans = new Map<string, SecretsFault[]>();
  const server = createServer(async (req, res) => {
    const body = await readAll(req);
    const operation = String(req.headers['x-amz-target'] ?? '').replace(/^secretsmanager\./, '');
    let secretId = '';
    try {
      secretId = String((JSON.parse(body.toString() || '{}') as { SecretId?: string; Name?: string }).SecretId ?? '');
    } catch {
      // not JSON: passes
    }
    const key = `${operation} ${secretId}`;
    calls.push(key);
    const fault = plans.get(key)?.shift() ?? 'pass';
    if (fault === 'throttle') {
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': 'ThrottlingException' });
      return res.end(JSON.stringify({ __type: 'ThrottlingException', message: 'Rate exceeded' }));
    }
    if (fault === 'drop') return req.socket.destroy();
    const upstream = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
      async (answer) => {
        const out = await readAll(answer);
        if (fault === 'land-then-drop') return req.socket.destroy();
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        res.end(out);
      },
    );
    upstream.on('error', () => req.socket.destroy());
    upstream.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    plan: (operation, secretId, faults) => plans.set(`${operation} ${secretId}`, [...faults]),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function readAll(s: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
