/** The page names the trace id of each failing region's last run, so on-call can open the server's trace of it. */
import { expect, it } from 'vitest';
import { composeBrief } from '../../../../functions/lambdas/brief/compose.ts';
import { readAlarmChange } from '../../../../functions/lambdas/brief/event.ts';
import { alarmsOf } from '../../../helpers/infra/cfn.ts';
import { smallFleet, synthFleet } from '../../../helpers/infra/synth.ts';
import { alarmEvent, minute, record, verdict } from '../../../helpers/brief/fixtures.ts';

it('shows the trace id under a failing region, not under a healthy one', () => {
  // Prepare
  const alarms = [...synthFleet(smallFleet()).templates]
    .filter(([n]) => n.includes('-alarms-'))
    .flatMap(([, t]) => alarmsOf(t.toJSON() as never));
  const alarm = alarms.find((a) => a.AlarmName === 'McpCanary/rates-prod/critical')!;
  const change = readAlarmChange(alarmEvent(alarm, { state: 'ALARM', previous: 'OK', at: minute(4) }), 'McpCanary', [])!;
  const failing = { ...verdict('rates-prod', 'failed', 'http_status'), traceId: '0af7651916cd43dd8448eb211c80319c' };
  const fine = { ...verdict('rates-prod', 'healthy'), traceId: '11111111111111111111111111111111' };
  const evidence = [
    { region: 'us-east-1', records: [1, 2, 3].map((k) => record(failing, 'us-east-1', minute(k))) },
    { region: 'eu-west-1', records: [1, 2, 3].map((k) => record(fine, 'eu-west-1', minute(k))) },
  ];
  // Act
  const b = composeBrief({ change, evidence, failureThreshold: 3, quorum: 1 });
  // Assess
  expect(b.text).toContain('    trace 0af7651916cd43dd8448eb211c80319c');
  expect(b.text).not.toContain('11111111111111111111111111111111');
});
