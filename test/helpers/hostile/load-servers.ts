/**
 * The load test's endpoints, in a process of their own so the canary's process holds only the
 * canary: healthy servers of both eras, a slow one and a hanging one. Prints their URLs as one JSON
 * line, and exits when its stdin closes.
 */
import { rateTool, startMcpServer, startRatesApi } from '../../../functions/demo/servers.ts';
import { modernEndpoint, readOnlyRateTool, startFaultServer } from '../faults.ts';

const SLOW_ANSWER_MS = Number(process.argv[2] ?? 1_000);

const api = await startRatesApi();
const modern = await startMcpServer({ era: 'modern', tools: [rateTool(api)] });
const legacy = await startMcpServer({ era: 'legacy', tools: [rateTool(api)] });
const endpoint = modernEndpoint({
  tools: [readOnlyRateTool],
  call: () => ({ content: [{ type: 'text', text: 'EURUSD 1.08' }], structuredContent: { rate: 1.08 } }),
});
const slow = await startFaultServer(
  (req, res, rx) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        void endpoint(req, res, rx);
        resolve();
      }, SLOW_ANSWER_MS);
      res.on('close', () => {
        clearTimeout(t);
        resolve();
      });
    }),
);
const hanging = await startFaultServer((_req, res) => new Promise<void>((resolve) => res.on('close', () => resolve())));

process.stdout.write(`${JSON.stringify({ modern: modern.url, legacy: legacy.url, slow: slow.url, hanging: hanging.url })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void Promise.all([modern.close(), legacy.close(), slow.close(), hanging.close(), api.close()]);
});
