/**
 * Waves: a slow target delays only its own datapoint, and the number of PutMetricData calls per
 * invocation stays bounded (each is billed). The client is mocked (aws-sdk-client-mock) to see which
 * datums each call carried and when; a window of 0 ms closes at the next turn of the event loop.
 */
import { CloudWatchClient, PutMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunRecord } from '../../../../functions/base/common/run-record.ts';
import { WavePublisher } from '../../../../functions/io/publish/waves.ts';

const record = (target: string): RunRecord => ({
  message: 'mcp-canary run',
  target,
  probeRegion: 'eu-west-1',
  startedAt: '2026-11-29T10:00:03.000Z',
  scheduledFor: '2026-11-29T10:00:00.000Z',
  verdict: {
    target,
    outcome: 'healthy',
    failure: null,
    detail: '',
    revision: null,
    server: null,
    durationMs: 100,
    retries: 0,
    probes: [],
    warnings: [],
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  },
});

const nextTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

function setup(expected: number, extra: { windowMs?: number } = {}) {
  const client = new CloudWatchClient({ region: 'us-east-1' });
  const cw = mockClient(client);
  cw.on(PutMetricDataCommand).resolves({});
  const publisher = new WavePublisher(client, { namespace: 'McpCanary', rate: '1m', deadlineAt: Date.now() + 60_000, expected, ...extra });
  const sentAt: number[] = [];
  cw.on(PutMetricDataCommand).callsFake(() => {
    sentAt.push(Date.now());
    return {};
  });
  const targetsOfCall = () =>
    cw.commandCalls(PutMetricDataCommand).map((c) =>
      c.args[0].input
        .MetricData!.filter((d) => d.MetricName === 'Verdict')
        .map((d) => d.Dimensions![0]!.Value)
        .sort(),
    );
  return { publisher, targetsOfCall, sentAt };
}

describe('publishing in waves', () => {
  it('sends a batch whose verdicts all came in one call, as soon as the last one is known', () => {
    // Prepare
    const { publisher, targetsOfCall } = setup(3, { windowMs: 60_000 });
    // Act
    for (const t of ['a', 'b', 'c']) publisher.add(record(t));
    // Assess: no waiting for the window once every verdict is in
    expect(targetsOfCall()).toEqual([['a', 'b', 'c']]);
  });

  it('sends the fast targets while a slow one is still being judged, and the slow one on its own later', async () => {
    // Prepare
    const { publisher, targetsOfCall } = setup(3, { windowMs: 0 });
    // Act
    publisher.add(record('fast-1'));
    publisher.add(record('fast-2'));
    await nextTurn();
    const beforeSlow = targetsOfCall();
    publisher.add(record('slow'));
    const result = await publisher.settle();
    // Assess
    expect(beforeSlow).toEqual([['fast-1', 'fast-2']]);
    expect(targetsOfCall()).toEqual([['fast-1', 'fast-2'], ['slow']]);
    expect(result).toMatchObject({ published: true, waves: 2, calls: 2, failedTargets: [] });
  });

  it('publishes each of several slow targets when it finishes: no slow target waits for a slower one', async () => {
    // Prepare: the clock is faked, so "later" is exact and no test waits for real time
    vi.useFakeTimers({ now: 0 });
    const { publisher, targetsOfCall, sentAt } = setup(6, { windowMs: 1_000 });
    const finishes: Array<[string, number]> = [
      ['fast-1', 100],
      ['fast-2', 200],
      ['slow-5s', 5_000],
      ['slow-12s', 12_000],
      ['slow-20s', 20_000],
      ['slow-30s', 30_000],
    ];
    // Act
    for (const [target, at] of finishes) {
      await vi.advanceTimersByTimeAsync(at - Date.now());
      publisher.add(record(target));
    }
    const result = await publisher.settle();
    // Assess: one call per wave; each target leaves within one window of its own verdict (the last at once)
    expect(targetsOfCall()).toEqual([['fast-1', 'fast-2'], ['slow-5s'], ['slow-12s'], ['slow-20s'], ['slow-30s']]);
    expect(sentAt).toEqual([1_100, 6_000, 13_000, 21_000, 30_000]);
    expect(result).toMatchObject({ published: true, waves: 5, calls: 5, failedTargets: [] });
  });

  it('does not wait for a target that was skipped (its run was a duplicate): the wave goes out when the rest are in', () => {
    const { publisher, targetsOfCall } = setup(3, { windowMs: 60_000 });
    publisher.add(record('a'));
    publisher.skip();
    expect(targetsOfCall()).toEqual([]);
    publisher.add(record('b'));
    expect(targetsOfCall()).toEqual([['a', 'b']]);
  });
});

afterEach(() => {
  vi.useRealTimers();
});
