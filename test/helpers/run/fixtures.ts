/** Real parts for the run's tests: endpoints that hang or are gone, and run deps wired to moto. */
import { createServer, type Socket } from 'node:net';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { RunDeps } from '../../../functions/lambdas/run/run.ts';
import { SecretReader } from '../../../functions/io/secrets/reader.ts';
import { freePort, motoCredentials } from '../moto.ts';
import { cloudWatchAt } from './readback.ts';

export const HOME_REGION = 'us-east-1';
export const PROBE_REGION = 'eu-west-1';
export const NAMESPACE = 'McpCanaryTest';

/** Accepts TCP connections and never answers a byte: the endpoint that holds a run open. */
export async function startHangingServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A URL on a port nobody listens on: connection refused. */
export async function deadUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}/mcp`;
}

export function motoSecretClients(endpoint: string) {
  return {
    secretsManager: (region: string) => new SecretsManagerClient({ region, endpoint, credentials: motoCredentials }),
    ssm: (region: string) => new SSMClient({ region, endpoint, credentials: motoCredentials }),
  };
}

/** Run deps against moto, collecting log lines instead of writing them. */
export function motoRunDeps(endpoint: string, lines: string[], overrides: Partial<RunDeps> = {}): RunDeps {
  return {
    probeRegion: PROBE_REGION,
    homeRegion: HOME_REGION,
    namespace: NAMESPACE,
    cloudWatch: cloudWatchAt(endpoint, HOME_REGION),
    secrets: new SecretReader(motoSecretClients(endpoint), { defaultRegion: PROBE_REGION }),
    log: (line) => lines.push(line),
    ...overrides,
  };
}

/** The error a promise rejects with; fails the test when it resolves instead. */
export async function rejectionOf<E extends Error = Error>(p: Promise<unknown>): Promise<E> {
  try {
    await p;
  } catch (e) {
    return e as E;
  }
  throw new Error('expected a rejection, but the promise resolved');
}
