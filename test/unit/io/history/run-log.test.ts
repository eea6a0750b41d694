/** The failure-class lookup reads the run log group the stacks create, and picks the class the paging runs had. */
import { describe, expect, it } from 'vitest';
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { failureClassOf, runLogGroupName } from '../../../../functions/io/history/run-log.ts';
import { FleetNames } from '../../../../infra/plan/names.ts';

describe('runLogGroupName', () => {
  it('is the name the stacks give the run functions’ log group', () => {
    for (const fleet of ['McpCanary', 'Prod-Canary', 'a1']) expect(runLogGroupName(fleet)).toBe(new FleetNames(fleet).runLogGroup);
  });
});

describe('failureClassOf', () => {
  const NOW = Date.UTC(2026, 11, 1, 12, 0);
  /** A run log answering failed runs of the given classes: the stand-in counts nothing, it only answers (shape check). */
  const logs = (failures: readonly unknown[]) => () =>
    ({
      send: async () => ({
        events: failures.map((failure, k) => ({
          message: JSON.stringify({
            message: 'mcp-canary run',
            target: 't',
            probeRegion: 'eu-west-1',
            startedAt: new Date(NOW + k * 1000).toISOString(),
            scheduledFor: new Date(NOW).toISOString(),
            verdict: { outcome: 'failed', failure, details: '<script>alert(1)</script> Bearer hunter2' },
          }),
        })),
      }),
    }) as unknown as CloudWatchLogsClient;
  const ask = (failures: readonly unknown[]) =>
    failureClassOf(
      { logs: logs(failures), logGroupName: '/mcp-canary/McpCanary/run' },
      { target: 't', regions: ['eu-west-1'], fromMs: NOW, toMs: NOW + 60_000 },
      { logCalls: 0 },
    );

  it('names the most frequent class of the taxonomy, whatever else a line in the log group says', async () => {
    expect(await ask(['timeout', 'auth', 'timeout'])).toBe('timeout');
    // Lines that are not the canary's own words never count, however many.
    expect(await ask(['<img src=x onerror=alert(1)>', '<img src=x onerror=alert(1)>', 'constructor', 'constructor', 42, 'auth'])).toBe(
      'auth',
    );
    expect(await ask(['__proto__', 'toString', { x: 1 }])).toBeNull();
  });
});
