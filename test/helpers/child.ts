/**
 * Child processes for tests and benchmarks: a command run to its end with its output collected, and a
 * server script in a process of its own that prints its URLs as one JSON line and exits when its
 * stdin closes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

export interface Finished {
  readonly code: number | null;
  /** Set when the process was killed (by `killAfterMs`, or from outside). */
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly cwd?: string;
  /** @default - this process's environment */
  readonly env?: NodeJS.ProcessEnv;
  /** Kill the process with SIGKILL after this long. @default - never */
  readonly killAfterMs?: number;
}

/** Runs a command to its end and collects its output. */
export function runToEnd(command: string, args: readonly string[], options: RunOptions = {}): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const killer = options.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', (e) => {
      clearTimeout(killer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export interface ServerProcess<Urls> {
  readonly urls: Urls;
  /** Closes its stdin and waits for it to exit. */
  stop(): Promise<void>;
}

/** Starts a TypeScript server script in its own Node process (through tsx) and reads its URLs. */
export async function startServerProcess<Urls>(script: string | URL, args: readonly string[] = []): Promise<ServerProcess<Urls>> {
  const path = script instanceof URL ? script.pathname : script;
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', path, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
  return {
    urls: JSON.parse(line) as Urls,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.stdin!.end();
      await exited;
    },
  };
}
