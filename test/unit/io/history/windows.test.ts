/** Maintenance openings from the config's windows, and the read resolution CloudWatch's retention allows. */
import { describe, expect, it } from 'vitest';
import { maintenanceFor, maintenanceLookup, openings } from '../../../../functions/io/history/maintenance-windows.ts';
import { resolutionFor, ruleAt } from '../../../../functions/io/history/resolution.ts';
import { MaintenanceWindow } from '../../../../functions/base/config/schema/maintenance.ts';

const w = (x: object) => MaintenanceWindow.parse(x);
const at = (s: string) => Date.parse(s);

describe('openings', () => {
  it('finds every Sunday 02:00 Berlin start, in CEST, and once on the night 02:00 happens twice', () => {
    const got = openings(
      w({ name: 'deploy', schedule: 'cron(0 2 * * SUN)', duration: '2 hours', timezone: 'Europe/Berlin' }),
      at('2026-10-17T00:00Z'),
      at('2026-11-01T00:00Z'),
    );
    expect(got.map((o) => [new Date(o.startMs).toISOString(), new Date(o.endMs).toISOString()])).toEqual([
      ['2026-10-18T00:00:00.000Z', '2026-10-18T02:00:00.000Z'],
      ['2026-10-25T00:00:00.000Z', '2026-10-25T02:00:00.000Z'],
    ]);
  });

  it('takes an at() window once, including one that started before the range, and only for its targets', () => {
    const win = w({ name: 'once', schedule: 'at(2026-11-01T23:30)', duration: '90 minutes', targets: ['a'] });
    expect(maintenanceFor('a', [win], at('2026-11-02T00:00Z'), at('2026-11-03T00:00Z'))).toEqual([
      { name: 'once', targets: ['a'], startMs: at('2026-11-01T23:30Z'), endMs: at('2026-11-02T01:00Z') },
    ]);
    expect(maintenanceFor('b', [win], at('2026-11-02T00:00Z'), at('2026-11-03T00:00Z'))).toEqual([]);
  });

  it('reads a day-of-month cron', () => {
    const got = openings(
      w({ name: 'm', schedule: 'cron(30 4 1 * *)', duration: '1 hour' }),
      at('2026-09-15T00:00Z'),
      at('2026-11-15T00:00Z'),
    );
    expect(got.map((o) => new Date(o.startMs).toISOString())).toEqual(['2026-10-01T04:30:00.000Z', '2026-11-01T04:30:00.000Z']);
  });
});

describe('resolutionFor', () => {
  it('reads run by run while CloudWatch keeps it, and coarser (said so) beyond', () => {
    expect(resolutionFor(15, 60)).toMatchObject({ periodSeconds: 60, exact: true });
    expect(resolutionFor(30, 60)).toMatchObject({ periodSeconds: 300, runsPerPeriod: 5, exact: false });
    expect(resolutionFor(30, 300)).toMatchObject({ periodSeconds: 300, exact: true });
    expect(resolutionFor(90, 60)).toMatchObject({ periodSeconds: 3600, runsPerPeriod: 60, exact: false });
    expect(resolutionFor(30, 420)).toMatchObject({ periodSeconds: 2100, runsPerPeriod: 5 });
    expect(resolutionFor(90, 3600)).toMatchObject({ periodSeconds: 3600, exact: true });
    expect(resolutionFor(90, 60).note).toMatch(/approximate/);
  });

  it('counts N in a row in points when coarse', () => {
    const rule = { regions: 3, quorum: 2, runsInARow: 3, periodSeconds: 60 };
    expect(ruleAt(rule, resolutionFor(30, 60))).toEqual({ regions: 3, quorum: 2, runsInARow: 1, periodSeconds: 300 });
    expect(ruleAt(rule, resolutionFor(10, 60))).toEqual(rule);
  });
});

describe('a fleet-wide lookup of maintenance openings', () => {
  it('finds each window once per range for all the targets it covers, and asks Intl for one formatter per zone', () => {
    // Prepare: 90 days of a weekly and a monthly window in two zones, for three targets.
    const windows = [
      w({ name: 'weekly', schedule: 'cron(0 2 * * SUN)', duration: '2 hours', timezone: 'America/New_York' }),
      w({ name: 'monthly', schedule: 'cron(30 3 1 * *)', duration: '1 hour', timezone: 'Australia/Lord_Howe', targets: ['a', 'c'] }),
    ];
    const from = at('2026-09-02T00:00Z');
    const to = at('2026-12-01T00:00Z');
    const Real = Intl.DateTimeFormat;
    let made = 0;
    Intl.DateTimeFormat = new Proxy(Real, {
      construct: (target, args: ConstructorParameters<typeof Real>) => (made++, new target(...args)),
    });
    // Act
    const lookup = maintenanceLookup(windows);
    const [a, b, c] = ['a', 'b', 'c'].map((t) => lookup(t, from, to));
    Intl.DateTimeFormat = Real;
    // Assess: the same openings, shared, not walked again per target; weekly alone for b.
    expect(a!.length).toBe(13 + 3);
    expect(b!.map((o) => o.name)).toEqual(Array(13).fill('weekly'));
    expect(c).toEqual(a);
    expect(c!.every((o, i) => o === a![i])).toBe(true);
    // Two zones: at most one formatter each, however many hours are looked up (2,160 per window in 90 days).
    expect(made).toBeLessThanOrEqual(2);
  });
});
