/**
 * The publisher's shapes: datums per run, batching, and the failure paths moto cannot produce
 * (throttling, AccessDenied) through aws-sdk-client-mock on one client instance. Backoff sleeps move a
 * fake clock, so no test waits.
 */
import { CloudWatchClient, CloudWatchServiceException, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-vitest/extend';
import { describe, expect, it } from 'vitest';
import {
  certainlyNotStored,
  MAX_DATUMS_PER_CALL,
  MAX_VALUES_PER_DATUM,
  inconclusiveData,
  metricData,
  publishRuns,
  regionData,
  type PublishOptions,
} from '../../../../functions/io/publish/metrics.ts';
import { INCONCLUSIVE_WEIGHT, TICKET_WEIGHT, type RunRecord } from '../../../../functions/base/common/run-record.ts';
import type { Outcome } from '../../../../functions/base/common/verdict.ts';

const record = (target: string, outcome: Outcome, durationMs = 420): RunRecord => ({
  message: 'mcp-canary run',
  target,
  probeRegion: 'eu-west-1',
  startedAt: '2026-11-29T10:00:47.000Z',
  scheduledFor: '2026-11-29T10:00:00.000Z',
  verdict: {
    target,
    outcome,
    failure: null,
    detail: '',
    revision: null,
    server: null,
    durationMs,
    retries: 0,
    probes: [],
    warnings: [],
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  },
});

const throttled = () =>
  new CloudWatchServiceException({ name: 'Throttling', $fault: 'client', $metadata: { httpStatusCode: 400 }, message: 'Rate exceeded' });
const denied = () =>
  new CloudWatchServiceException({
    name: 'AccessDenied',
    $fault: 'client',
    $metadata: { httpStatusCode: 403 },
    message: 'not authorized to perform: cloudwatch:PutMetricData',
  });

/** A fake clock that only backoff sleeps move, and a record of the sleeps. */
function clock(budgetMs: number): { opts: PublishOptions; sleeps: number[] } {
  let now = 0;
  const sleeps: number[] = [];
  return {
    sleeps,
    opts: {
      namespace: 'McpCanary',
      rate: '1m',
      deadlineAt: budgetMs,
      now: () => now,
      random: () => 0.5,
      sleep: async (ms) => {
        sleeps.push(ms);
        now += ms;
      },
    },
  };
}

describe('metric data', () => {
  it.each([
    ['healthy', 0],
    ['degraded', TICKET_WEIGHT],
    ['inconclusive', INCONCLUSIVE_WEIGHT + TICKET_WEIGHT],
    ['failed', 1],
  ] as const)('writes a %s run as one Verdict datum of %d under Target alone, stamped with its scheduled period', (outcome, value) => {
    // Act
    const data = metricData(record('rates', outcome, 1234));
    // Assess: the period the run was scheduled for, not the second it started
    expect(data).toEqual([
      {
        MetricName: 'Verdict',
        Dimensions: [{ Name: 'Target', Value: 'rates' }],
        Timestamp: new Date('2026-11-29T10:00:00.000Z'),
        Value: value,
        Unit: 'None',
        StorageResolution: 60,
      },
    ]);
  });

  it('counts a healthy run with a warning (an expiring certificate) toward a ticket, never toward a page', () => {
    const healthy = record('rates', 'healthy');
    const warned = {
      ...healthy,
      verdict: {
        ...healthy.verdict,
        warnings: [{ kind: 'certificate_expiry' as const, detail: 'expires in 3 days', expiresAt: '2026-12-02T00:00:00.000Z' }],
      },
    };
    expect(metricData(warned)[0]!.Value).toBe(TICKET_WEIGHT);
  });
});

describe('the fleet-level inconclusive datum', () => {
  it('counts the verdicts that could not judge, per scheduled period, under Rate alone', () => {
    const runs = [record('a', 'inconclusive'), record('b', 'failed'), record('c', 'inconclusive'), record('d', 'healthy')];
    expect(inconclusiveData(runs, '5m')).toEqual([
      {
        MetricName: 'Inconclusive',
        Dimensions: [{ Name: 'Rate', Value: '5m' }],
        Timestamp: new Date('2026-11-29T10:00:00.000Z'),
        Value: 2,
        Unit: 'Count',
        StorageResolution: 60,
      },
    ]);
  });

  it("leaves out a gateway's backends not judged because the gateway is down: the gateway's own verdict pages", () => {
    const down = (name: string) => {
      const r = record(`gw/${name}`, 'inconclusive');
      return { ...r, verdict: { ...r.verdict, failure: 'gateway_down' as const, gateway: 'gw' } };
    };
    expect(inconclusiveData([record('gw', 'failed'), down('github'), down('docs')], '1m')).toEqual([]);
    // The backends' own Verdict points still carry the inconclusive place: they neither resolve nor vote.
    expect(metricData(down('github'))[0]!.Value).toBe(INCONCLUSIVE_WEIGHT + TICKET_WEIGHT);
    expect(inconclusiveData([down('github'), record('other', 'inconclusive')], '1m')[0]!.Value).toBe(1);
  });

  it('writes nothing for runs that all judged: a missing point is "none", never a 0 that beats a late wave', () => {
    expect(inconclusiveData([record('a', 'healthy'), record('b', 'failed'), record('c', 'degraded')], '1m')).toEqual([]);
  });

  it('goes out with the run datums of its wave', async () => {
    const client = new CloudWatchClient({ region: 'us-east-1' });
    const cw = mockClient(client);
    cw.on(PutMetricDataCommand).resolves({});
    await publishRuns(client, [record('a', 'inconclusive')], clock(10_000).opts);
    const sent = cw.commandCalls(PutMetricDataCommand)[0]!.args[0].input.MetricData!;
    expect(sent.map((d) => d.MetricName)).toEqual(['Verdict', 'RunDuration', 'Inconclusive']);
  });
});

describe('publishing', () => {
  it('sends 2500 runs (and their region datum) in three calls of at most 1000 datums, in the namespace', async () => {
    // Prepare
    const client = new CloudWatchClient({ region: 'us-east-1' });
    const cw = mockClient(client);
    cw.on(PutMetricDataCommand).resolves({});
    const runs = Array.from({ length: 2500 }, (_, i) => record(`t${i}`, 'healthy'));
    // Act
    const result = await publishRuns(client, runs, clock(10_000).opts);
    // Assess
    expect(result).toEqual({ published: true, calls: 3, attempts: 3, errors: [] });
    const sizes = cw.commandCalls(PutMetricDataCommand).map((c) => c.args[0].input.MetricData!.length);
    expect(sizes.sort()).toEqual([1000, 1000, 501]);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(MAX_DATUMS_PER_CALL);
    expect(cw).toHaveReceivedCommandWith(PutMetricDataCommand, { Namespace: 'McpCanary' });
  });

  it('retries a throttled PutMetricData with growing backoff, then publishes', async () => {
    // Prepare
    const client = new CloudWatchClient({ region: 'us-east-1' });
    const cw = mockClient(client);
    cw.on(PutMetricDataCommand).rejectsOnce(throttled()).rejectsOnce(throttled()).rejectsOnce(throttled()).resolves({});
    const { opts, sleeps } = clock(10_000);
    // Act
    const result = await publishRuns(client, [record('rates', 'failed')], opts);
    // Assess
    expect(result).toMatchObject({ published: true, attempts: 4 });
    expect(cw).toHaveReceivedCommandTimes(PutMetricDataCommand, 4);
    expect(sleeps).toEqual([150, 300, 600]);
  });

  it('gives up when throttling outlasts the deadline, reports it and does not throw', async () => {
    // Prepare
    const client = new CloudWatchClient({ region: 'us-east-1' });
    mockClient(client).on(PutMetricDataCommand).rejects(throttled());
    const { opts, sleeps } = clock(5_000);
    // Act
    const result = await publishRuns(client, [record('rates', 'failed')], opts);
    // Assess
    expect(result.published).toBe(false);
    expect(result.errors).toEqual(['Throttling: Rate exceeded']);
    expect(sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5_000);
    expect(result.attempts).toBe(sleeps.length + 1);
    expect(result.attempts).toBeGreaterThan(3);
  });

  it('does not retry AccessDenied: the same call would be denied again', async () => {
    // Prepare
    const client = new CloudWatchClient({ region: 'us-east-1' });
    mockClient(client).on(PutMetricDataCommand).rejects(denied());
    const { opts, sleeps } = clock(10_000);
    // Act
    const result = await publishRuns(client, [record('rates', 'healthy')], opts);
    // Assess
    expect(result).toEqual({
      published: false,
      calls: 1,
      attempts: 1,
      errors: ['AccessDenied: not authorized to perform: cloudwatch:PutMetricData'],
    });
    expect(sleeps).toEqual([]);
  });

  it('retries a put that never connected (connection refused), then publishes', async () => {
    // Prepare
    const client = new CloudWatchClient({ region: 'us-east-1' });
    mockClient(client)
      .on(PutMetricDataCommand)
      .rejectsOnce(Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' }))
      .resolves({});
    // Act
    const result = await publishRuns(client, [record('rates', 'healthy')], clock(10_000).opts);
    // Assess
    expect(result).toMatchObject({ published: true, attempts: 2 });
  });

  it('does not retry a reset after the request went out: the datum may be stored, and a copy would count its region twice', async () => {
    // Prepare
    const client = new CloudWatchClient({ region: 'us-east-1' });
    const cw = mockClient(client);
    cw.on(PutMetricDataCommand)
      .rejectsOnce(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
      .resolves({});
    const { opts, sleeps } = clock(10_000);
    // Act
    const result = await publishRuns(client, [record('rates', 'healthy')], opts);
    // Assess
    expect(result).toEqual({ published: false, calls: 1, attempts: 1, errors: ['Error: socket hang up'] });
    expect(cw).toHaveReceivedCommandTimes(PutMetricDataCommand, 1);
    expect(sleeps).toEqual([]);
  });

  it('makes no call at all when the deadline has already passed', async () => {
    // Prepare
    const client = new CloudWatchClient({ region: 'us-east-1' });
    const cw = mockClient(client);
    cw.on(PutMetricDataCommand).resolves({});
    // Act
    const result = await publishRuns(client, [record('rates', 'healthy')], clock(0).opts);
    // Assess
    expect(result).toMatchObject({ published: false, attempts: 0 });
    expect(cw).toHaveReceivedCommandTimes(PutMetricDataCommand, 0);
  });
});

describe('which failures are retried: only those certainly not stored', () => {
  it.each([
    [
      'throttling',
      new CloudWatchServiceException({ name: 'Throttling', $fault: 'client', $metadata: { httpStatusCode: 400 }, message: '' }),
      true,
    ],
    [
      'a 429',
      new CloudWatchServiceException({ name: 'TooManyRequests', $fault: 'client', $metadata: { httpStatusCode: 429 }, message: '' }),
      true,
    ],
    [
      'a 503 (may have been stored)',
      new CloudWatchServiceException({ name: 'ServiceUnavailable', $fault: 'server', $metadata: { httpStatusCode: 503 }, message: '' }),
      false,
    ],
    [
      'a 500 (may have been stored)',
      new CloudWatchServiceException({ name: 'InternalFailure', $fault: 'server', $metadata: { httpStatusCode: 500 }, message: '' }),
      false,
    ],
    ['a connection reset (may have been stored)', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), false],
    ['a broken pipe (may have been stored)', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), false],
    [
      'a request timeout after sending (may have been stored)',
      Object.assign(new Error('a request has exceeded the configured 2000 ms requestTimeout.'), {
        name: 'TimeoutError',
        code: 'ETIMEDOUT',
      }),
      false,
    ],
    [
      'an abort at the deadline (may have been stored)',
      Object.assign(new Error('This operation was aborted'), { name: 'AbortError' }),
      false,
    ],
    ['a DNS failure (never sent)', Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), true],
    ['connection refused (never sent)', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }), true],
    [
      'the connection timeout (never connected)',
      Object.assign(
        new Error(
          '@smithy/node-http-handler - the request socket did not establish a connection with the server within the configured timeout of 1000 ms.',
        ),
        { name: 'TimeoutError' },
      ),
      true,
    ],
    [
      'access denied',
      new CloudWatchServiceException({ name: 'AccessDenied', $fault: 'client', $metadata: { httpStatusCode: 403 }, message: '' }),
      false,
    ],
    [
      'an invalid parameter',
      new CloudWatchServiceException({ name: 'InvalidParameterValue', $fault: 'client', $metadata: { httpStatusCode: 400 }, message: '' }),
      false,
    ],
    [
      'missing credentials',
      Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }),
      false,
    ],
  ])('%s → retried: %s', (_what, error, retried) => {
    // Act + Assess
    expect(certainlyNotStored(error)).toBe(retried);
  });
});

describe('the fleet-level region datum', () => {
  it('carries every run duration of a region and period as Values and Counts, under ProbeRegion alone', () => {
    // Prepare
    const runs = [record('a', 'healthy', 120), record('b', 'failed', 30_000), record('c', 'healthy', 120)];
    // Act
    const data = regionData(runs);
    // Assess
    expect(data).toEqual([
      {
        MetricName: 'RunDuration',
        Dimensions: [{ Name: 'ProbeRegion', Value: 'eu-west-1' }],
        Timestamp: new Date('2026-11-29T10:00:00.000Z'),
        Values: [120, 30_000],
        Counts: [2, 1],
        Unit: 'Milliseconds',
        StorageResolution: 60,
      },
    ]);
  });

  it('splits more distinct durations than one datum takes', () => {
    const runs = Array.from({ length: MAX_VALUES_PER_DATUM + 5 }, (_, i) => record(`t${i}`, 'healthy', 100 + i));
    const data = regionData(runs);
    expect(data.map((d) => d.Values!.length)).toEqual([MAX_VALUES_PER_DATUM, 5]);
    expect(data.flatMap((d) => d.Counts!).reduce((a, b) => a + b, 0)).toBe(runs.length);
  });
});
