/**
 * An HTTP fault proxy in front of moto_server that answers, when told to, the way AWS answers a service
 * under stress, in each service's own error shape (the JSON protocols the SDK clients speak):
 * - `throttle`: HTTP 400 with the service's throttling code: `ThrottlingException` (SSM, Secrets Manager),
 *   `ProvisionedThroughputExceededException` (DynamoDB), `Throttling` (CloudWatch, query-compatible: the
 *   code travels in `x-amzn-query-error`). Nothing is done.
 * - `server`: HTTP 500 with the service's internal-error code (`InternalServerError`, `InternalServiceError`,
 *   `InternalFailure`). Nothing is done (a 5xx after the work was done is `land-then-drop`'s case).
 * - `denied`: HTTP 400 `AccessDeniedException` (`AccessDenied` for CloudWatch): an IAM or SCP change.
 * - `hang`: the connection is accepted and never answered (a region impaired, a network path gone).
 * - `land-then-drop`: the call reaches moto and is done, then the connection is cut before the answer.
 * Faults are planned per operation (`GetParameters`, `BatchGetSecretValue`, `PutItem`, `PutMetricData`…),
 * in call order, then calls pass; or stand until planned otherwise. Every call is recorded by operation.
 *
 * Where moto differs from AWS, the proxy makes it behave as AWS does, and says so here:
 * - DynamoDB: moto checks a ConditionExpression and writes in two steps without a lock, so two concurrent
 *   conditional PutItems of one key can both succeed (measured: 1 key in 200, three puts at once). Calls
 *   for the same item key wait for each other, as DynamoDB's writes to one item are atomic.
 * - SSM: moto's GetParameters does not accept ARNs (AWS does: "The names or Amazon Resource Names (ARNs)
 *   of the parameters"); each `arn:…:parameter/<path>` is handed to moto as `/<path>` (the names these
 *   tests use are hierarchical), and moto's answer carries the ARN, as AWS's does.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { LEDGER_KEY_ATTRIBUTE } from '../../../functions/base/common/run-record.ts';

export type AwsFault = 'pass' | 'throttle' | 'server' | 'denied' | 'hang' | 'land-then-drop';
export const AWS_FAULTS: readonly AwsFault[] = ['throttle', 'server', 'denied', 'hang'];

export interface AwsFaultProxy {
  readonly endpoint: string;
  /** The operation of each call, in order (`PutItem`, `GetParameters`, …). */
  readonly calls: string[];
  /** The faults the next calls of `operation` meet, in order; then they pass. */
  plan(operation: string, faults: readonly AwsFault[]): void;
  /** Every call of `operation` meets `fault` until planned otherwise. */
  always(operation: string, fault: AwsFault): void;
  /** Every operation passes again, and no plan is left. */
  clear(): void;
  close(): Promise<void>;
}

type Service = 'dynamodb' | 'ssm' | 'secretsmanager' | 'cloudwatch';

/** Each service's own error codes, as its JSON protocol carries them. */
const SHAPES: Record<Service, Record<'throttle' | 'server' | 'denied', { code: string; message: string }>> = {
  dynamodb: {
    throttle: {
      code: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
      message: 'The level of configured provisioned throughput for the table was exceeded.',
    },
    server: { code: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' },
    denied: {
      code: 'com.amazonaws.dynamodb.v20120810#AccessDeniedException',
      message:
        'User: arn:aws:sts::123456789012:assumed-role/run/fn is not authorized to perform: dynamodb:PutItem with an explicit deny in a service control policy',
    },
  },
  ssm: {
    throttle: { code: 'ThrottlingException', message: 'Rate exceeded' },
    server: { code: 'InternalServerError', message: 'An error occurred on the server side.' },
    denied: {
      code: 'AccessDeniedException',
      message: 'User: arn:aws:sts::123456789012:assumed-role/run/fn is not authorized to perform: ssm:GetParameters',
    },
  },
  secretsmanager: {
    throttle: { code: 'ThrottlingException', message: 'Rate exceeded' },
    server: { code: 'InternalServiceError', message: 'An error occurred on the server side.' },
    denied: {
      code: 'AccessDeniedException',
      message: 'User: arn:aws:sts::123456789012:assumed-role/run/fn is not authorized to perform: secretsmanager:GetSecretValue',
    },
  },
  cloudwatch: {
    throttle: { code: 'Throttling', message: 'Rate exceeded' },
    server: { code: 'InternalFailure', message: 'The request processing has failed because of an unknown error.' },
    denied: {
      code: 'AccessDenied',
      message: 'User: arn:aws:sts::123456789012:assumed-role/run/fn is not authorized to perform: cloudwatch:PutMetricData',
    },
  },
};

export async function startAwsFaultProxy(motoEndpoint: string): Promise<AwsFaultProxy> {
  const target = new URL(motoEndpoint);
  const calls: string[] = [];
  const plans = new Map<string, AwsFault[]>();
  const standing = new Map<string, AwsFault>();
  const sockets = new Set<Socket>();
  const itemLocks = new Map<string, Promise<void>>();
  const server = createServer(async (req, res) => {
    let body = await readAll(req);
    const amzTarget = String(req.headers['x-amz-target'] ?? '');
    const service = serviceOf(amzTarget);
    const operation = amzTarget.slice(amzTarget.indexOf('.') + 1);
    calls.push(operation);
    const fault = plans.get(operation)?.shift() ?? standing.get(operation) ?? 'pass';
    if (fault === 'hang') return;
    if (service === 'dynamodb') await lockItem(itemLocks, res, body);
    if ((fault === 'throttle' || fault === 'server' || fault === 'denied') && service) return answerFault(res, service, fault);
    if (service === 'ssm' && operation === 'GetParameters') body = namesForMoto(body);
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        path: req.url,
        method: req.method,
        headers: { ...req.headers, 'content-length': String(body.length) },
      },
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
    clear: () => {
      plans.clear();
      standing.clear();
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function serviceOf(amzTarget: string): Service | undefined {
  if (amzTarget.startsWith('DynamoDB_')) return 'dynamodb';
  if (amzTarget.startsWith('AmazonSSM.')) return 'ssm';
  if (amzTarget.startsWith('secretsmanager.')) return 'secretsmanager';
  if (amzTarget.startsWith('GraniteServiceVersion20100801.')) return 'cloudwatch';
  return undefined;
}

function answerFault(res: ServerResponse, service: Service, fault: 'throttle' | 'server' | 'denied'): void {
  const { code, message } = SHAPES[service][fault];
  const headers: Record<string, string> = { 'content-type': 'application/x-amz-json-1.1' };
  if (service === 'dynamodb' || service === 'cloudwatch') headers['content-type'] = 'application/x-amz-json-1.0';
  // CloudWatch's JSON protocol is query-compatible: the SDK takes the query code from this header.
  if (service === 'cloudwatch') headers['x-amzn-query-error'] = `${code};${fault === 'server' ? 'Receiver' : 'Sender'}`;
  res.writeHead(fault === 'server' ? 500 : 400, headers);
  res.end(JSON.stringify({ __type: code, message }));
}

/** DynamoDB's writes to one item are atomic; moto's are not: calls for one item key wait for each other. */
async function lockItem(locks: Map<string, Promise<void>>, res: ServerResponse, body: Buffer): Promise<void> {
  const key = itemKey(body);
  const previous = locks.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  const chained = previous.then(() => mine);
  locks.set(key, chained);
  res.once('close', () => {
    release();
    if (locks.get(key) === chained) locks.delete(key);
  });
  await previous;
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

/** `arn:aws:ssm:<region>:<account>:parameter/a/b` → `/a/b`, for moto's GetParameters (see the file's comment). */
function namesForMoto(body: Buffer): Buffer {
  const call = JSON.parse(body.toString()) as { Names?: string[] };
  call.Names = call.Names?.map((n) => (n.startsWith('arn:') ? `/${n.slice(n.indexOf(':parameter/') + ':parameter/'.length)}` : n));
  return Buffer.from(JSON.stringify(call));
}

async function readAll(s: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
