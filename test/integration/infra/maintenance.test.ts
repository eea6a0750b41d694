/**
 * Maintenance windows: a sample fleet with a window synthesizes mute rules covering exactly that
 * window's paging and ticket alarms — never a dead-man or other canary-owner alarm — and the template
 * passes cfn-lint; a bad cron, duration or target name fails synth with one line naming the field.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { FleetInput } from '../../../functions/base/config/schema/fleet.ts';
import { parseFleet } from '../../../functions/base/config/load/load.ts';
import { durationMinutes, scheduleProblem } from '../../../functions/base/config/schema/maintenance.ts';
import { McpCanaryFleet } from '../../../infra/fleet.ts';
import { newTestApp, resourcesOf, smallFleet, synthFleet } from '../../helpers/infra/synth.ts';
import { itWithTools } from '../../helpers/tools.ts';

const run = promisify(execFile);

function withWindows(maintenance: unknown[]): FleetInput {
  return { ...smallFleet(), maintenance } as FleetInput;
}

describe('a fleet with maintenance windows', () => {
  const s = synthFleet(
    withWindows([
      { name: 'rates-deploy', schedule: 'cron(0 2 * * SUN)', duration: '2 hours', timezone: 'Europe/Berlin', targets: ['rates-prod'] },
      { name: 'all-hands', schedule: 'at(2099-12-24T22:00)', duration: 'PT90M' },
    ]),
  );
  const template = s.json('McpCanary-maintenance');
  const rules = Object.fromEntries(resourcesOf(template, 'AWS::CloudWatch::AlarmMuteRule').map(([, p]) => [p.Name as string, p]));

  it("mutes exactly the paging and ticket alarms of the window's targets", () => {
    expect(Object.keys(rules).sort()).toEqual(['McpCanary-maintenance-all-hands', 'McpCanary-maintenance-rates-deploy']);
    expect(rules['McpCanary-maintenance-rates-deploy']).toMatchObject({
      MuteTargets: { AlarmNames: ['McpCanary/rates-prod/critical', 'McpCanary/rates-prod/warning'] },
      Rule: { Schedule: { Expression: 'cron(0 2 * * SUN)', Duration: 'PT2H', Timezone: 'Europe/Berlin' } },
    });
    expect(rules['McpCanary-maintenance-all-hands']).toMatchObject({
      MuteTargets: { AlarmNames: ['rates-prod', 'docs', 'slow-one'].flatMap((t) => [`McpCanary/${t}/critical`, `McpCanary/${t}/warning`]) },
      Rule: { Schedule: { Expression: 'at(2099-12-24T22:00)', Duration: 'PT1H30M' } },
    });
  });

  it('names only alarms the alarm stacks create, and never a canary-owner alarm', () => {
    const alarmNames = new Set(
      [...s.templates.keys()]
        .filter((n) => n.startsWith('McpCanary-alarms-') || n.startsWith('McpCanary-probe-'))
        .flatMap((n) => resourcesOf(s.json(n), 'AWS::CloudWatch::Alarm').map(([, p]) => p.AlarmName as string)),
    );
    const muted = Object.values(rules).flatMap((r) => (r.MuteTargets as { AlarmNames: string[] }).AlarmNames);
    for (const name of muted) expect(alarmNames).toContain(name);
    expect(muted.some((n) => /dead-man|\/canary\//.test(n))).toBe(false);
    // The canary owner's alarms exist and stay out of every rule.
    expect([...alarmNames].some((n) => n.endsWith('/dead-man'))).toBe(true);
  });

  it('deploys after the alarm stacks whose alarms it names', () => {
    const deps = s.fleet.maintenance[0]!.dependencies.map((d) => d.stackName);
    expect(deps.length).toBeGreaterThan(0);
    expect(deps.every((d) => d.startsWith('McpCanary-alarms-'))).toBe(true);
  });

  itWithTools(['cfn-lint'], 'passes cfn-lint', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-maint-'));
    try {
      const file = join(dir, 'maintenance.template.json');
      writeFileSync(file, JSON.stringify(template));
      const lint = await run('cfn-lint', ['--', file]).then(
        () => ({ code: 0, stdout: '' }),
        (e: { code: number; stdout: string }) => e,
      );
      expect(lint.stdout).toBe('');
      expect(lint.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('splits a window over more than 100 alarms into several rules', () => {
    const many = smallFleet({ targets: Array.from({ length: 60 }, (_, i) => ({ name: `t${i}`, url: `https://t${i}.example.com/mcp` })) });
    const big = synthFleet({ ...many, maintenance: [{ name: 'all', schedule: 'cron(0 3 * * *)', duration: '1 hour' }] } as FleetInput);
    const parts = resourcesOf(big.json('McpCanary-maintenance'), 'AWS::CloudWatch::AlarmMuteRule').map(
      ([, p]) => (p.MuteTargets as { AlarmNames: string[] }).AlarmNames.length,
    );
    expect(parts).toEqual([100, 20]);
  });
});

it('adds no stack to a fleet without windows', () => {
  const s = synthFleet(smallFleet());
  expect([...s.templates.keys()].some((n) => n.includes('maintenance'))).toBe(false);
});

describe('synth refuses a bad window with one line naming the field', () => {
  function synthError(maintenance: unknown[], fleet = withWindows(maintenance)): string {
    const { app, cleanup } = newTestApp();
    try {
      new McpCanaryFleet(app, 'McpCanary', fleet);
      app.synth();
    } catch (e) {
      // A config error, never a construct's crash: the app prints it alone and exits 2.
      expect((e as Error).name).toBe('CanaryError');
      return (e as Error).message;
    } finally {
      cleanup();
    }
    throw new Error('synth succeeded');
  }

  it.each([
    [{ name: 'w', schedule: 'cron(0 25 * * *)', duration: '1 hour' }, 'maintenance[0].schedule cron(0 25 * * *): hour "25" is not 0–23'],
    [
      { name: 'w', schedule: 'cron(0 2 * *)', duration: '1 hour' },
      'maintenance[0].schedule cron(0 2 * *) has 4 field(s); a mute-rule cron has 5',
    ],
    [
      { name: 'w', schedule: 'rate(1 day)', duration: '1 hour' },
      'maintenance[0].schedule must be cron(minute hour day-of-month month day-of-week) or at(yyyy-mm-ddThh:mm)',
    ],
    [{ name: 'w', schedule: 'cron(0 2 1 * MON)', duration: '1 hour' }, 'restricts both day-of-month and day-of-week'],
    [{ name: 'w', schedule: 'at(2026-02-30T10:00)', duration: '1 hour' }, 'at(2026-02-30T10:00) is not a real date and time'],
    [
      { name: 'w', schedule: 'cron(0 2 * * SUN)', duration: 'two hours' },
      'maintenance[0].duration "two hours" is not a duration: write "90 minutes", "2 hours"',
    ],
    [{ name: 'w', schedule: 'cron(0 2 * * SUN)', duration: '16 days' }, 'maintenance[0].duration "16 days" is outside 1 minute to 15 days'],
    [
      { name: 'w', schedule: 'cron(0 2 * * SUN)', duration: '1 hour', targets: ['rates-prd'] },
      'maintenance[0].targets[0] "rates-prd" is not a target of this fleet. Targets: rates-prod, docs, slow-one',
    ],
    [
      { name: 'w', schedule: 'cron(0 2 * * SUN)', duration: '1 hour', timezone: 'Mars/Olympus' },
      'maintenance[0].timezone "Mars/Olympus" is not an IANA time zone',
    ],
    [
      { name: 'w', schedule: 'cron(0 2 * * SUN)', duration: '1 hour', timezone: 'Europe/Berln' },
      'maintenance[0].timezone "Europe/Berln" is not an IANA time zone (did you mean "Europe/Berlin"?)',
    ],
    // Intl reads these; CloudWatch's Timezone is the IANA name as the database writes it.
    [
      { name: 'w', schedule: 'cron(0 2 * * SUN)', duration: '1 hour', timezone: 'europe/berlin' },
      'maintenance[0].timezone "europe/berlin" is not written as the IANA time zone database writes it: write "Europe/Berlin"',
    ],
    [{ name: 'w', schedule: 'cron(0 2 * * SUN)', duration: '1 hour', timezone: 'utc' }, 'write "UTC"'],
    [
      { name: 'w', schedule: 'cron(0 2 * * SUN)', duration: '1 hour', timezone: '+05:00' },
      'maintenance[0].timezone "+05:00" is a UTC offset, not an IANA time zone',
    ],
    [
      { name: 'w', schedule: 'cron(0 2 * * SUN)', duration: '1 hour', targets: ['docs', 'rates-prod', 'docs'] },
      'maintenance[0].targets[2] "docs" is already listed at maintenance[0].targets[0]: list each target once',
    ],
  ])('%j', (window, message) => {
    const e = synthError([window]);
    expect(e).toContain(message);
    expect(e.split('\n')).toHaveLength(1);
  });

  it('refuses a window named like a rule another window is split into', () => {
    // 60 targets: 120 alarms, so "all" becomes the rules all-1 and all-2, and "all-1" is taken.
    const many = smallFleet({ targets: Array.from({ length: 60 }, (_, i) => ({ name: `t${i}`, url: `https://t${i}.example.com/mcp` })) });
    const maintenance = [
      { name: 'all', schedule: 'cron(0 3 * * *)', duration: '1 hour' },
      { name: 'all-1', schedule: 'cron(0 4 * * *)', duration: '1 hour', targets: ['t1'] },
    ];
    const e = synthError([], { ...many, maintenance } as FleetInput);
    expect(e).toContain(
      'maintenance[1].name "all-1" is also the name of a mute rule of maintenance[0] ("all"), which mutes more than 100 alarms and so becomes 2 rules (all-1, all-2). Rename one of the two windows.',
    );
    expect(e.split('\n')).toHaveLength(1);
  });

  it('takes the IANA names as written, links among them', () => {
    for (const timezone of ['Europe/Berlin', 'UTC', 'Etc/GMT+5', 'US/Pacific', 'America/Argentina/Buenos_Aires'])
      expect(
        parseFleet(withWindows([{ name: 'w', schedule: 'cron(0 2 * * SUN)', duration: '1 hour', timezone }])).maintenance[0]!.timezone,
      ).toBe(timezone);
  });
});

describe('schedule and duration words', () => {
  it('accepts the cron forms a mute rule takes', () => {
    for (const s of [
      'cron(0 2 * * SUN)',
      'cron(*/15 9-17 * * MON-FRI)',
      'cron(30 1 1,15 * ?)',
      'cron(0 0 ? JAN-MAR 1)',
      'at(2026-12-24T22:00)',
    ]) {
      expect(scheduleProblem(s), s).toBeNull();
    }
  });
  it('reads durations in words and ISO 8601', () => {
    expect([
      durationMinutes('90 minutes'),
      durationMinutes('2 hours'),
      durationMinutes('1 day'),
      durationMinutes('PT2H'),
      durationMinutes('P1DT12H'),
    ]).toEqual([90, 120, 1440, 120, 2160]);
    expect(durationMinutes('soon')).toBeNull();
  });
});
