import { it } from 'vitest';
import { judge } from '/work/wt/r17/functions/judge/judge.ts';
import { startFaultServer } from '/work/wt/r17/test/helpers/faults.ts';
import { legacyEndpoint } from '/work/wt/r17/test/helpers/hostile/harness.ts';
import { target } from '/work/wt/r17/test/helpers/probe.ts';
const L = { timeoutMs: 600, budgetMs: 3000 };
it('2 task', async () => {
  for (const rt of ['task', 'input_required', 'task\u202e']) for (const ok of [false, true]) {
  const leg = legacyEndpoint({});
  const s = await startFaultServer((q, res, rx) => {
    if (rx.rpcMethod === 'server/discover') return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: rx.rpcId, result: { resultType: rt, task: { taskId: 'x' } } }));
    if (ok) return leg(q, res, rx);
    res.writeHead(400).end();
  });
  for (const revision of [undefined, '2026-07-28', '2025-11-25'] as const) {
  const v = await judge(target(s.url, { ...L, ...(revision ? { revision } : {}) }));
  console.log('2', rt, ok, revision, v.outcome, v.failure, v.detail, v.probes.map((p) => p.detail));
  }
  await s.close();
  }
});
