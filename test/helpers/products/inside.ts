/**
 * Runs inside the loopback-only network namespace (`unshare --net --pid --fork`, see run.ts), as the
 * namespace's first process: brings `lo` up, starts the upstream stub, starts the product server
 * pointed at it, then runs `mcp-canary check --config … --json` as a user would once per upstream
 * state, and prints one line `RESULT <json>` for the test. Every child is bounded; when this process
 * ends, the kernel ends everything else in the namespace.
 *
 *   node --import tsx test/helpers/products/inside.ts <product>
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runToEnd } from '../child.ts';
import { canaryTargets, type Product } from './product.ts';
import { PRODUCTS } from './servers/index.ts';
import { startUpstream, type SeenRequest, type UpstreamState } from './upstream.ts';

const ROOT = join(import.meta.dirname, '../../..');
const STATES: readonly UpstreamState[] = ['healthy', 'revoked', 'dead'];
/** Bounds, far above what a run takes (a few seconds): a hung child fails the test, never hangs it. */
const SERVER_START_MS = 30_000;
const CHECK_KILL_MS = 60_000;

export interface StateRun {
  readonly state: UpstreamState;
  readonly code: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  /** What the upstream stub was asked during this run. */
  readonly upstreamSaw: readonly SeenRequest[];
}

export interface InsideResult {
  readonly product: string;
  /** The run's own directory: the product server's cwd and HOME (the test checks nothing is left in it). */
  readonly home: string;
  /** What a connection to an address off loopback did (it must fail at once). */
  readonly offLoopback: string;
  readonly serverStartMs: number;
  readonly runs: readonly StateRun[];
  /** The product server's own output, for diagnosis. */
  readonly serverLog: string;
}

async function main(): Promise<void> {
  const product = PRODUCTS[process.argv[2] ?? ''];
  if (!product) throw new Error(`usage: inside.ts <${Object.keys(PRODUCTS).join('|')}>`);
  execFileSync('ip', ['link', 'set', 'lo', 'up']);
  const offLoopback = await tryConnect('192.0.2.1', 443); // TEST-NET-1: only a real route could reach it
  const upstream = await startUpstream(product.upstream, product.key);
  const port = await freePort();
  const home = mkdtempSync(join(tmpdir(), `products-${product.name}-`));
  const server = spawn(
    // The suite's own Node (package.json engines: ≥ 22.18), which the two servers wanting Node 22 accept.
    process.execPath,
    [join(ROOT, 'node_modules', product.entry), ...product.args({ port, upstream: upstream.url })],
    {
      cwd: home,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        TMPDIR: home,
        DO_NOT_TRACK: '1',
        NO_COLOR: '1',
        ...product.env({ port, upstream: upstream.url }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let serverLog = '';
  server.stdout.on('data', (d: Buffer) => (serverLog += d.toString()));
  server.stderr.on('data', (d: Buffer) => (serverLog += d.toString()));
  const started = performance.now();
  try {
    await waitForListener(
      port,
      () => server.exitCode !== null,
      () => serverLog,
    );
    const serverStartMs = Math.round(performance.now() - started);
    const runs: StateRun[] = [];
    for (const state of STATES) {
      await upstream.setState(state);
      const config = join(home, `${state}.json`);
      writeFileSync(config, JSON.stringify(fleet(product, port, state)));
      const r = await runToEnd(
        process.execPath,
        ['--import', 'tsx', join(ROOT, 'functions/cli/bin.ts'), 'check', '--config', config, '--json'],
        {
          cwd: ROOT,
          env: { PATH: process.env.PATH, HOME: home, NO_COLOR: '1' },
          killAfterMs: CHECK_KILL_MS,
        },
      );
      runs.push({ state, code: r.code, signal: r.signal, stdout: r.stdout, stderr: r.stderr, upstreamSaw: upstream.seen });
    }
    const result: InsideResult = { product: product.name, home, offLoopback, serverStartMs, runs, serverLog: serverLog.slice(-4000) };
    process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  } catch (e) {
    rmSync(home, { recursive: true, force: true }); // no RESULT: the test never learns where it was
    throw e;
  } finally {
    server.kill('SIGKILL');
    await upstream.close();
  }
}

/** The fleet file a user would write for this product: one target per revision setting. */
function fleet(p: Product, port: number, state: UpstreamState) {
  return {
    homeRegion: 'us-east-1',
    targets: canaryTargets(p, state).map(({ name, revision }) => ({
      name,
      url: `http://127.0.0.1:${port}${p.path}`,
      revision,
      headers: p.mcpToken ? { Authorization: `Bearer ${p.mcpToken}` } : {},
      tool: p.tool,
      // The lane judges failure classes, not speed: nothing here may turn slow into degraded.
      timeoutMs: 15_000,
      budgetMs: 45_000,
      degradedMs: 45_000,
    })),
  };
}

function freePort(): Promise<number> {
  // The namespace is this run's own: no other process can take the port between close and listen.
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function waitForListener(port: number, exited: () => boolean, log: () => string): Promise<void> {
  const deadline = performance.now() + SERVER_START_MS;
  while (performance.now() < deadline) {
    if (exited()) throw new Error(`the product server exited before listening:\n${log().slice(-2000)}`);
    if ((await tryConnect('127.0.0.1', port)) === 'connected') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the product server did not listen on ${port} within ${SERVER_START_MS} ms:\n${log().slice(-2000)}`);
}

function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2_000 });
    socket.once('connect', () => (socket.destroy(), resolve('connected')));
    socket.once('timeout', () => (socket.destroy(), resolve('timeout')));
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

main().catch((e: unknown) => {
  process.stderr.write(`inside.ts: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
