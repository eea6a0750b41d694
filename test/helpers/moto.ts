/**
 * A real AWS-shaped endpoint for wire tests: `moto_server` (Python, preinstalled on these machines and
 * in CI), started on a free loopback port and stopped by its pid. CloudWatch, SNS→SQS, Logs,
 * Secrets Manager and SSM speak the real wire protocols through it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { requireTool } from './tools.ts';

export interface Moto {
  readonly endpoint: string;
  /** Clears all state between tests (`POST /moto-api/reset`). */
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/** Static credentials for the SDK clients pointed at moto: never real ones. */
export const motoCredentials = { accessKeyId: 'testing', secretAccessKey: 'testing' } as const;

export interface MotoOptions {
  /**
   * Load AWS's managed IAM policies (`arn:aws:iam::aws:policy/…`), so roles can attach them as in an
   * account (MOTO_IAM_LOAD_MANAGED_POLICIES; IAM starts a little slower). @default false
   */
  readonly awsManagedPolicies?: boolean;
}

export async function startMoto(options: MotoOptions = {}): Promise<Moto> {
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const env = { ...process.env, ...(options.awsManagedPolicies ? { MOTO_IAM_LOAD_MANAGED_POLICIES: 'true' } : {}) };
  const child: ChildProcess = spawn(requireTool('moto_server'), ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore', env });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let failed: Error | undefined;
  child.once('error', (e) => (failed = e));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (failed) throw new Error(`moto_server did not start: ${failed.message}`);
    if (child.exitCode !== null)
      throw new Error(`moto_server exited at start (exit ${child.exitCode}): try \`moto_server -p 5000\` by hand`);
    try {
      const res = await fetch(`${endpoint}/moto-api/`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('moto_server did not answer within 30 s');
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    endpoint,
    reset: async () => {
      await fetch(`${endpoint}/moto-api/reset`, { method: 'POST' });
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}
