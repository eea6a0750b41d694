/**
 * The paging path as deployed: every alarm action names a topic that exists in the alarm's region and
 * whose policy lets CloudWatch alarms publish. A TLS-only topic policy replaces SNS's default one, so
 * without an explicit allow every page would fail silently (only the alarm history would say so).
 */
import { describe, expect, it } from 'vitest';
import { alarmsOf, render } from '../../helpers/infra/cfn.ts';
import { resourcesOf, smallFleet, synthFleet, type CfnTemplate } from '../../helpers/infra/synth.ts';

interface TopicPolicy {
  readonly region: string;
  readonly name: string;
  readonly statements: ReadonlyArray<Record<string, unknown>>;
}

function topicsWithPolicies(templates: ReadonlyMap<string, CfnTemplate>, regionOf: (stack: string) => string): TopicPolicy[] {
  return [...templates].flatMap(([stack, t]) =>
    resourcesOf(t, 'AWS::SNS::Topic').map(([id, topic]) => {
      const policy = resourcesOf(t, 'AWS::SNS::TopicPolicy').find(([, p]) => JSON.stringify(p.Topics) === JSON.stringify([{ Ref: id }]));
      return {
        region: regionOf(stack),
        name: String(topic.TopicName),
        statements: policy ? (policy[1].PolicyDocument as { Statement: Array<Record<string, unknown>> }).Statement : [],
      };
    }),
  );
}

function globMatches(pattern: string, value: string): boolean {
  const re = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return re.test(value);
}

function allowsAlarm(statements: ReadonlyArray<Record<string, unknown>>, alarmArn: string): boolean {
  return statements.some((s) => {
    const principal = s.Principal as { Service?: string } | undefined;
    const condition = s.Condition as { ArnLike?: Record<string, unknown>; StringEquals?: Record<string, unknown> } | undefined;
    return (
      s.Effect === 'Allow' &&
      principal?.Service === 'cloudwatch.amazonaws.com' &&
      s.Action === 'sns:Publish' &&
      render(condition?.StringEquals?.['aws:SourceAccount']) === '${AWS::AccountId}' &&
      globMatches(render(condition?.ArnLike?.['aws:SourceArn']), alarmArn)
    );
  });
}

describe('alarm → SNS', () => {
  const synth = synthFleet(smallFleet());
  const stacks = new Map([...synth.templates].map(([name, t]) => [name, t.toJSON() as CfnTemplate]));
  const regionOf = (stack: string) =>
    synth.fleet.node
      .findAll()
      .map((c) => c as unknown as { stackName?: string; region?: string })
      .find((c) => c.stackName === stack)!.region!;
  const topics = topicsWithPolicies(stacks, regionOf);

  it('lets every alarm publish to every topic it names, in its own region', () => {
    let checked = 0;
    for (const [stack, t] of stacks) {
      const region = regionOf(stack);
      for (const alarm of alarmsOf(t as never)) {
        const alarmArn = `arn:\${AWS::Partition}:cloudwatch:${region}:\${AWS::AccountId}:alarm:${alarm.AlarmName}`;
        for (const action of [...(alarm.AlarmActions ?? []), ...(alarm.OKActions ?? [])]) {
          const arn = render(action);
          const topic = arn.startsWith('${')
            ? // `{ Ref: <topic> }`: a topic of the same stack.
              topics.find(
                (x) =>
                  x.region === region &&
                  `\${${resourcesOf(stacks.get(stack)!, 'AWS::SNS::Topic').find(([, p]) => p.TopicName === x.name)?.[0]}}` === arn,
              )
            : // A topic by name: `arn:<partition>:sns:<region>:<account>:<name>`.
              topics.find((x) => x.region === /:sns:([a-z0-9-]+):/.exec(arn)?.[1] && x.name === arn.slice(arn.lastIndexOf(':') + 1));
          expect(topic, `${alarm.AlarmName} → ${arn}`).toBeDefined();
          expect(topic!.region).toBe(region);
          expect(allowsAlarm(topic!.statements, alarmArn), `${alarm.AlarmName} may publish to ${topic!.name}`).toBe(true);
          checked++;
        }
      }
    }
    // Every target alarm (9) and every canary alarm, ALARM and OK actions alike.
    expect(checked).toBeGreaterThanOrEqual(2 * (9 + 2 + 3 * 2 + 1));
  });

  it("does not let another fleet's alarms, or another account, publish", () => {
    const pages = topics.find((t) => t.name === 'McpCanary-pages')!;
    expect(allowsAlarm(pages.statements, 'arn:${AWS::Partition}:cloudwatch:us-east-1:${AWS::AccountId}:alarm:Other-rates-critical')).toBe(
      false,
    );
    expect(
      allowsAlarm(
        topics.find((t) => t.name === 'McpCanary-briefs')!.statements,
        'arn:${AWS::Partition}:cloudwatch:us-east-1:${AWS::AccountId}:alarm:McpCanary/rates-prod/critical',
      ),
    ).toBe(false);
  });
});
