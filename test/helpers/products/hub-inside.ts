/**
 * Runs inside a loopback-only network namespace (`unshare --net --pid --fork`, see hub.ts), as its first
 * process: a real aggregating gateway from npm in front of three real SDK backends, judged by the
 * scheduled run (`run()`, the run Lambda's handler body) publishing to moto_server, in four states:
 *
 * - `healthy`: every backend up;
 * - `backend-down`: the `docs` backend closed;
 * - `hub-down`: the aggregator (mcp-hub) killed, its Streamable HTTP front (supergateway) still up;
 * - `front-down`: the front killed too: nothing listens on the gateway's URL.
 *
 * The gateway is `mcp-hub` (it merges the backends' tools as `<server>__<tool>`), whose own `/mcp` speaks
 * only the old HTTP+SSE transport (GET /mcp for the stream, POST /messages), which the canary does not;
 * `supergateway` serves it as Streamable HTTP, as a user would deploy it for a Streamable HTTP client:
 *
 *   canary ──Streamable HTTP──▶ supergateway --stateful ──stdio──▶ supergateway --sse ──HTTP+SSE──▶ mcp-hub ──▶ backends
 *
 * mcp-hub fetches its marketplace registry from github.io at start: in here that fails at once (the hub
 * says so and carries on with an empty catalog), and its state and cache go to the run's own directory.
 * Prints one line `RESULT <json>` for the test; when this process ends, the kernel ends the rest.
 *
 *   node --import tsx test/helpers/products/hub-inside.ts
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunRecord } from '../../../functions/base/common/run-record.ts';
import type { Verdict } from '../../../functions/base/common/verdict.ts';
import { startMcpServer, type RunningServer } from '../../../functions/demo/servers.ts';
import { run, type RunSummary } from '../../../functions/lambdas/run/run.ts';
import { freePort, startMoto, type Moto } from '../moto.ts';
import { HOME_REGION, NAMESPACE, motoRunDeps } from '../run/fixtures.ts';
import { cloudWatchAt, readRuns, type ReadBack } from '../run/readback.ts';

const ROOT = join(import.meta.dirname, '../../..');
const HUB = join(ROOT, 'node_modules/mcp-hub/dist/cli.js');
const SUPERGATEWAY = join(ROOT, 'node_modules/supergateway/dist/index.js');
/** The backends, as mcp-hub's config names them: its tools are `<name>__get_status`. */
export const HUB_BACKENDS = ['github', 'docs', 'tickets'] as const;
export const HUB_GATEWAY = 'hub';
export type HubState = 'healthy' | 'backend-down' | 'hub-down' | 'front-down';
/** Far above a start's second or two: a process that never comes up fails the run, never hangs it. */
const START_MS = 30_000;

export interface HubStateRun {
  readonly state: HubState;
  readonly summary: RunSummary;
  /** The run records logged, one per verdict: target, outcome, failure, detail, gateway. */
  readonly records: readonly Pick<Verdict, 'target' | 'outcome' | 'failure' | 'detail' | 'gateway' | 'revision'>[];
  /** Each verdict's published `Verdict` datapoints, read back from moto as its alarm reads them. */
  readonly published: Record<string, ReadBack>;
  /** tools/call requests each backend received during this state's run: the gateway really routed them. */
  readonly backendCalls: Record<string, number>;
}

export interface HubResult {
  readonly home: string;
  readonly offLoopback: string;
  readonly hubVersion: string;
  /** What mcp-hub's `/mcp` answered to a Streamable HTTP POST (the canary's request): the transport it lacks. */
  readonly hubMcpPost: { readonly status: number; readonly body: string };
  /** The scheduled run's verdict on mcp-hub's own /mcp, without the front. */
  readonly direct: Pick<Verdict, 'outcome' | 'failure' | 'detail'>;
  readonly runs: readonly HubStateRun[];
  /** What mcp-hub printed until it was ready (its start, the marketplace fetch, the backends connected). */
  readonly hubStartLog: string;
  /** mcp-hub's and supergateway's own output, their last words, for diagnosis. */
  readonly hubLog: string;
  readonly frontLog: string;
}

/** The fleet's target: the gateway's URL and its backends, each by the prefix mcp-hub puts on its tools. */
export function hubTarget(url: string) {
  return {
    name: HUB_GATEWAY,
    url,
    timeoutMs: 5_000,
    budgetMs: 40_000,
    // The lane judges classes, not speed: a busy machine must not turn slow into degraded.
    degradedMs: 40_000,
    backends: HUB_BACKENDS.map((name) => ({ name, prefix: `${name}__`, tool: { name: 'get_status', expectText: `${name} ok` } })),
  };
}

async function main(): Promise<void> {
  execFileSync('ip', ['link', 'set', 'lo', 'up']);
  const offLoopback = await tryConnect('192.0.2.1', 443); // TEST-NET-1: only a real route could reach it
  const home = mkdtempSync(join(tmpdir(), 'products-hub-'));
  const children: ChildProcess[] = [];
  let moto: Moto | undefined;
  try {
    moto = await startMoto();
    const backends = new Map<string, RunningServer>();
    for (const name of HUB_BACKENDS)
      backends.set(
        name,
        await startMcpServer({
          era: 'dual',
          name,
          tools: [
            {
              name: 'get_status',
              annotations: { readOnlyHint: true },
              handler: () => ({ content: [{ type: 'text', text: `${name} ok` }] }),
            },
          ],
        }),
      );
    writeFileSync(
      join(home, 'hub.json'),
      JSON.stringify({ mcpServers: Object.fromEntries([...backends].map(([name, b]) => [name, { url: b.url }])) }),
    );
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      TMPDIR: home,
      XDG_STATE_HOME: join(home, 'state'),
      XDG_DATA_HOME: join(home, 'data'),
      XDG_CONFIG_HOME: join(home, 'config'),
      DO_NOT_TRACK: '1',
      NO_COLOR: '1',
    };
    const hubPort = await freePort();
    const hub = started(spawn(process.execPath, [HUB, '--port', String(hubPort), '--config', join(home, 'hub.json')], { cwd: home, env }));
    children.push(hub.child);
    const health = await waitFor(`http://127.0.0.1:${hubPort}/api/health`, hub, (h: HubHealth) => hubReady(h));
    const hubStartLog = hub.log();
    const hubMcpPost = await postInitialize(`http://127.0.0.1:${hubPort}/mcp`);
    const frontPort = await freePort();
    // The front: Streamable HTTP (one stdio child per session, --stateful) over an SSE client of mcp-hub.
    const inner = `${process.execPath} ${SUPERGATEWAY} --sse http://127.0.0.1:${hubPort}/mcp`;
    const front = started(
      spawn(
        process.execPath,
        [SUPERGATEWAY, '--stdio', inner, '--outputTransport', 'streamableHttp', '--stateful', '--port', String(frontPort)],
        {
          cwd: home,
          env,
        },
      ),
    );
    children.push(front.child);
    await waitFor(`http://127.0.0.1:${frontPort}/healthz`, front, () => true);
    const url = `http://127.0.0.1:${frontPort}/mcp`;

    const runs: HubStateRun[] = [];
    const judge = async (state: HubState) => {
      await moto!.reset();
      const before = callsOf(backends);
      const lines: string[] = [];
      const summary = await run({ targets: [hubTarget(url)] }, motoRunDeps(moto!.endpoint, lines));
      const home_ = cloudWatchAt(moto!.endpoint, HOME_REGION);
      const published: Record<string, ReadBack> = {};
      for (const v of summary.verdicts) published[v.target] = await readRuns(home_, NAMESPACE, v.target);
      const after = callsOf(backends);
      runs.push({
        state,
        summary,
        records: lines.map((l) => {
          const { target, outcome, failure, detail, gateway, revision } = (JSON.parse(l) as RunRecord).verdict;
          return { target, outcome, failure, detail, gateway, revision };
        }),
        published,
        backendCalls: Object.fromEntries(HUB_BACKENDS.map((n) => [n, after[n]! - before[n]!])),
      });
    };
    // The canary pointed at mcp-hub's own /mcp, as a user first would: what it says of the missing transport.
    const directLines: string[] = [];
    await run(
      { targets: [{ name: 'hub-direct', url: `http://127.0.0.1:${hubPort}/mcp`, timeoutMs: 5_000, tool: { name: 'github__get_status' } }] },
      motoRunDeps(moto.endpoint, directLines),
    );
    const direct = (JSON.parse(directLines[0]!) as RunRecord).verdict;
    await judge('healthy');
    await backends.get('docs')!.close();
    await judge('backend-down');
    await stop(hub.child);
    await judge('hub-down');
    await stop(front.child);
    await judge('front-down');

    const result: HubResult = {
      home,
      offLoopback,
      hubVersion: health.version,
      hubMcpPost,
      direct: { outcome: direct.outcome, failure: direct.failure, detail: direct.detail },
      hubStartLog,
      runs,
      hubLog: hub.log().slice(-4000),
      frontLog: front.log().slice(-4000),
    };
    process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
  } catch (e) {
    rmSync(home, { recursive: true, force: true }); // no RESULT: the test never learns where it was
    throw e;
  } finally {
    for (const c of children) c.kill('SIGKILL');
    await moto?.stop();
  }
}

interface HubHealth {
  readonly state: string;
  readonly version: string;
  readonly servers: readonly { readonly name: string; readonly status: string }[];
}

/** mcp-hub is ready and connected to every backend (its tools are listed only then). */
function hubReady(h: HubHealth): boolean {
  return h.state === 'ready' && HUB_BACKENDS.every((n) => h.servers.some((s) => s.name === n && s.status === 'connected'));
}

function callsOf(backends: Map<string, RunningServer>): Record<string, number> {
  return Object.fromEntries([...backends].map(([n, b]) => [n, b.methods().filter((m) => m === 'tools/call').length]));
}

interface Started {
  readonly child: ChildProcess;
  log(): string;
}

function started(child: ChildProcess): Started {
  let log = '';
  child.stdout?.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
  return { child, log: () => log };
}

/** Polls `url` until it answers JSON that `ready` accepts; fails naming the process's output when it exits or never does. */
async function waitFor<T>(url: string, p: Started, ready: (body: T) => boolean): Promise<T> {
  const deadline = performance.now() + START_MS;
  while (performance.now() < deadline) {
    if (p.child.exitCode !== null)
      throw new Error(`${url}: the process exited (${p.child.exitCode}) before answering:\n${p.log().slice(-2000)}`);
    try {
      const body = (await (await fetch(url)).json().catch(() => ({}))) as T;
      if (ready(body)) return body;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} was not ready within ${START_MS} ms:\n${p.log().slice(-2000)}`);
}

async function postInitialize(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
    }),
  });
  return { status: res.status, body: (await res.text()).slice(0, 300) };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
}

function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 2_000 });
    socket.once('connect', () => (socket.destroy(), resolve('connected')));
    socket.once('timeout', () => (socket.destroy(), resolve('timeout')));
    socket.once('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

if (process.argv[1] === import.meta.filename) {
  // The backends' and the SDK clients' handles would keep the loop alive: the RESULT line is the end.
  main()
    .then(() => process.exit(0))
    .catch((e: unknown) => {
      process.stderr.write(`hub-inside.ts: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exit(1);
    });
}
