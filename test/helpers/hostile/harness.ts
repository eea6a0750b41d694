/** The hostile matrix's harness: judge a fault server with the matrix's timeout and budget, check the bound. */
import { expect } from 'vitest';
import type { TargetInput } from '../../../functions/base/config/schema/target.ts';
import { judge } from '../../../functions/engine/judge/judge.ts';
import type { Verdict } from '../../../functions/base/common/verdict.ts';
import { selfSignedCert, startFaultServer, type FaultHandler } from '../faults.ts';
import { target } from '../probe.ts';
import { withLateness } from '../lateness.ts';

export const TIMEOUT_MS = 600;
export const BUDGET_MS = 3_000;
/**
 * The run budget + 10 %: no row may take longer, beyond how late this process's timers ran while it
 * was judged (a loaded machine delays the budget's timer as much as any other).
 */
export const BOUND_MS = BUDGET_MS * 1.1;

const lateness = new WeakMap<Verdict, number>();

/** judge(), remembering how late this process's timers fired meanwhile: the verdict's allowance over a bound. */
export async function judgeTimed(...args: Parameters<typeof judge>): Promise<Verdict> {
  const { value, lateMs } = await withLateness(() => judge(...args));
  lateness.set(value, lateMs);
  return value;
}

/** The lateness measured while `v` was judged (0 when it was judged without measuring). */
export function latenessOf(v: Verdict): number {
  return lateness.get(v) ?? 0;
}

export async function judgeFault(
  handler: FaultHandler,
  over: Partial<TargetInput> = {},
  tls = false,
): Promise<{ v: Verdict; received: string[]; url: string }> {
  const server = await startFaultServer(handler, tls ? { tls: selfSignedCert() } : {});
  try {
    const v = await judgeTimed(target(server.url, { timeoutMs: TIMEOUT_MS, budgetMs: BUDGET_MS, ...over }));
    return { v, received: server.received.map((r) => r.rpcMethod ?? r.method), url: server.url };
  } finally {
    await server.close();
  }
}

export function expectVerdict(v: Verdict, outcome: string, failure: string | null, detail?: RegExp): void {
  expect({ outcome: v.outcome, failure: v.failure }).toEqual({ outcome, failure });
  if (detail) expect(v.detail).toMatch(detail);
  expect(v.durationMs).toBeLessThanOrEqual(BOUND_MS + latenessOf(v));
}

/** Streams `total` bytes in 64 KiB chunks until the client goes away. */
export function hugeBody(total: number): FaultHandler {
  return (_req, res) =>
    new Promise<void>((resolve) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
        resolve();
      };
      res.on('close', () => resolve());
      pump();
    });
}

/**
 * A hand-written 2025 endpoint (initialize, tools/list, tools/call, sessions by header) whose answers
 * the test controls: the revision it answers `initialize` with, its capabilities, how it answers a call.
 */
export function legacyEndpoint(opts: {
  protocolVersion?: string;
  capabilities?: Record<string, unknown>;
  serverInfo?: { name: string; version: string };
  tools?: unknown[];
  call?: FaultHandler;
  onGet?: FaultHandler;
}): FaultHandler {
  return (req, res, rx) => {
    const json = (body: unknown, status = 200): void =>
      void res.writeHead(status, { 'content-type': 'application/json', 'mcp-session-id': 'sess-1' }).end(JSON.stringify(body));
    if (rx.method === 'GET') return opts.onGet ? opts.onGet(req, res, rx) : void res.writeHead(405).end();
    if (rx.method === 'DELETE') return void res.writeHead(200).end();
    switch (rx.rpcMethod) {
      case 'server/discover':
        return json({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } }, 400);
      case 'initialize':
        return json({
          jsonrpc: '2.0',
          id: rx.rpcId,
          result: {
            protocolVersion: opts.protocolVersion ?? '2025-11-25',
            capabilities: opts.capabilities ?? { tools: {} },
            serverInfo: opts.serverInfo ?? { name: 'legacy-hand', version: '1.0.0' },
          },
        });
      case 'notifications/initialized':
        return void res.writeHead(202).end();
      case 'tools/list':
        return json({ jsonrpc: '2.0', id: rx.rpcId, result: { tools: opts.tools ?? [readOnly] } });
      case 'tools/call':
        if (opts.call) return opts.call(req, res, rx);
        return json({
          jsonrpc: '2.0',
          id: rx.rpcId,
          result: { content: [{ type: 'text', text: 'rate 1.08' }], structuredContent: { rate: 1.08 } },
        });
      default:
        return json(
          { jsonrpc: '2.0', id: rx.rpcId ?? null, error: { code: -32601, message: 'Method not found' } },
          rx.rpcId === undefined ? 202 : 200,
        );
    }
  };
}

const readOnly = { name: 'get_rate', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } };
