/**
 * An HTTP fault proxy in front of moto's DynamoDB, for what the run ledger's table can do on AWS:
 * `throttle` (400 ProvisionedThroughputExceededException: nothing written; on-demand tables throttle
 * too), `hang` (the connection is accepted and never answered: a table the function cannot reach in
 * time), `land-then-drop` (the write reaches moto and is stored, then the connection is cut before
 * the answer). Faults are planned per operation (`PutItem` is the claim, `UpdateItem` the completion),
 * in call order; then calls pass. Every call is recorded.
 *
 * It also makes moto's writes to one item atomic, as DynamoDB's are: moto checks a ConditionExpression and
 * writes in two steps without a lock, so two concurrent conditional PutItems of one key can both succeed
 * (measured: 1 key in 200, three puts at once). That let two deliveries both claim a run, which is what the
 * ledger tests must tell from a bug. Calls for the same item key wait for each other; others do not.
 */
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { LEDGER_KEY_ATTRIBUTE } from '../../../functions/base/common/run-record.ts';

export type LedgerFault = 'pass' | 'throttle' | 'hang' | 'land-then-drop';

export interface LedgerFaultProxy {
  readonly endpoint: string;
  /** The operation of each call, in order (`PutItem`, `UpdateItem`, …). */
  readonly calls: string[];
  /** The faults the next calls of `operation` meet, in order; then they pass. */
  plan(operation: string, faults: readonly LedgerFault[]): void;
  /** Every call of `operation` meets `fault` until planned otherwise. */
  always(operation: string, fault: LedgerFault): void;
  close(): Promise<void>;
}

export async function startLedgerFaultProxy(motoEndpoint: string): Promise<LedgerFaultProxy> {
  const target = new URL(motoEndpoint);
  const calls: string[] = [];
  const plans = new Map<string, LedgerFault[]>();
  const standing = new Map<string, LedgerFault>();
  const sockets = new Set<Socket>();
  const itemLocks = new Map<string, Promise<void>>();
  const server = createServer(async (req, res) => {
    const body = await readAll(req);
    const operation = String(req.headers['x-amz-target'] ?? '').replace(/^DynamoDB_\d+\./, '');
    calls.push(operation);
    const fault = plans.get(operation)?.shift() ?? standing.get(operation) ?? 'pass';
    if (fault === 'hang') return;
    const key = itemKey(body);
    const previous = itemLocks.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const chained = previous.then(() => mine);
    itemLocks.set(key, chained);
    res.once('close', () => {
      release();
      if (itemLocks.get(key) === chained) itemLocks.delete(key);
    });
    await previous;
    if (fault === 'throttle') {
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      return res.end(
        JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
          message: 'The level of configured provisioned throughput for the table was exceeded.',
        }),
      );
    }
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
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    plan: (operation, faults) => plans.set(operation, [...faults]),
    always: (operation, fault) => standing.set(operation, fault),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The item a call is about (`Item` or `Key`, as JSON), or the whole body for calls without one. */
function itemKey(body: Buffer): string {
  try {
    const call = JSON.parse(body.toString() || '{}') as {
      TableName?: string;
      Item?: Record<string, unknown>;
      Key?: Record<string, unknown>;
    };
    const id = call.Key ?? (call.Item && { [LEDGER_KEY_ATTRIBUTE]: call.Item[LEDGER_KEY_ATTRIBUTE] });
    return id ? `${call.TableName} ${JSON.stringify(id)}` : body.toString();
  } catch {
    return body.toString();
  }
}

async function readAll(s: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
