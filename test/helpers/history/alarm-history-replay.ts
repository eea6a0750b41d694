/**
 * moto stores alarms but keeps no alarm history (it has no DescribeAlarmHistory), so this loopback proxy
 * sits in front of it: DescribeAlarmHistory (AWS JSON 1.0, `X-Amz-Target: GraniteServiceVersion20100801.
 * DescribeAlarmHistory`) is answered from recorded items, in pages of the request's MaxRecords with a
 * NextToken, filtered by StartDate/EndDate as CloudWatch does; every other request goes to moto untouched.
 * It counts the calls per action, so a test checks the cost the report states against the wire. It can
 * refuse an action (in some regions) as AWS does when the caller lacks the permission: HTTP 400 with the
 * JSON protocol's `__type` (and the query-compatible `x-amzn-query-error` CloudWatch's SDK reads).
 */
import { createServer, request, type IncomingMessage } from 'node:http';

export interface RecordedItem {
  readonly AlarmName: string;
  /** Epoch ms. */
  readonly at: number;
  readonly from: 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';
  readonly to: 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';
}

export interface Replay {
  readonly endpoint: string;
  /** Calls seen per X-Amz-Target action (e.g. GetMetricData). */
  readonly calls: Map<string, number>;
  close(): Promise<void>;
}

const read = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** An action answered with AWS's access-denied error instead, in the regions listed (every region when none). */
export interface Refusal {
  readonly action: string;
  /** The error code AWS gives for it: `AccessDenied` (CloudWatch), `AccessDeniedException` (CloudWatch Logs). */
  readonly code: string;
  readonly regions?: readonly string[];
}

export async function startAlarmHistoryReplay(
  motoEndpoint: string,
  items: readonly RecordedItem[],
  refusals: readonly Refusal[] = [],
): Promise<Replay> {
  const calls = new Map<string, number>();
  const moto = new URL(motoEndpoint);
  const server = createServer(async (req, res) => {
    const body = await read(req);
    const target = String(req.headers['x-amz-target'] ?? '');
    const action = target.split('.').pop() || 'other';
    calls.set(action, (calls.get(action) ?? 0) + 1);
    // The signing region, from the SigV4 credential scope (`Credential=<key>/<date>/<region>/<service>/aws4_request`).
    const region = /Credential=[^/]+\/\d+\/([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1];
    const refused = refusals.find((r) => r.action === action && (!r.regions || (region !== undefined && r.regions.includes(region))));
    if (refused) {
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-query-error': `${refused.code};Sender` });
      res.end(JSON.stringify({ __type: refused.code, message: `User is not authorized to perform: ${action}` }));
      return;
    }
    if (action === 'DescribeAlarmHistory') {
      const q = JSON.parse(body.toString('utf8') || '{}') as {
        StartDate?: number;
        EndDate?: number;
        MaxRecords?: number;
        NextToken?: string;
      };
      const from = (q.StartDate ?? 0) * 1000;
      const to = (q.EndDate ?? Number.MAX_SAFE_INTEGER / 1000) * 1000;
      // Newest first, as CloudWatch returns them by default.
      const matching = items.filter((i) => i.at >= from && i.at <= to).sort((a, b) => b.at - a.at);
      const start = q.NextToken ? Number(q.NextToken) : 0;
      const page = matching.slice(start, start + (q.MaxRecords ?? 50));
      const next = start + page.length < matching.length ? String(start + page.length) : undefined;
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(
        JSON.stringify({
          AlarmHistoryItems: page.map((i) => ({
            AlarmName: i.AlarmName,
            AlarmType: 'MetricAlarm',
            Timestamp: i.at / 1000,
            HistoryItemType: 'StateUpdate',
            HistorySummary: `Alarm updated from ${i.from} to ${i.to}`,
            HistoryData: JSON.stringify({ version: '1.0', oldState: { stateValue: i.from }, newState: { stateValue: i.to } }),
          })),
          ...(next ? { NextToken: next } : {}),
        }),
      );
      return;
    }
    const upstream = request({ host: moto.hostname, port: moto.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    upstream.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
