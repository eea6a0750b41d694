/**
 * The alarms of the targets placed in one stack, in the home region: three per target and nothing else.
 * Which targets, and when a stack splits so it stays inside CloudFormation's limits, is placement's
 * (infra/plan/placement.ts): by a hash of the target name, so other targets coming and going leave a
 * target's alarms where they are.
 */
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { AlarmKind } from '../../functions/base/common/alarm-words.ts';
import type { FleetNames, TopicKind } from '../plan/names.ts';
import type { TargetPlan } from '../plan/plan.ts';
import { TargetAlarms } from './target-alarms.ts';
import { topicArn } from './topics.ts';

export interface AlarmStackProps extends StackProps {
  readonly names: FleetNames;
  readonly namespace: string;
  readonly failureThreshold: number;
  readonly targets: readonly TargetPlan[];
}

export class AlarmStack extends Stack {
  readonly targetAlarms: TargetAlarms[] = [];

  constructor(scope: Construct, id: string, props: AlarmStackProps) {
    super(scope, id, props);
    const { names } = props;
    const n = props.failureThreshold;
    // The home stack's topics, by name: no cross-stack export to pin them.
    const topic = (kind: TopicKind) => Topic.fromTopicArn(this, `Topic-${kind}`, topicArn(this, names.topic(kind)));
    const topics = {
      [AlarmKind.critical]: topic('pages'),
      [AlarmKind.warning]: topic('tickets'),
      [AlarmKind.deadMan]: topic('canary-owner'),
    };
    for (const t of props.targets) {
      this.targetAlarms.push(
        new TargetAlarms(this, t.name, {
          names,
          namespace: props.namespace,
          target: t.name,
          ...(t.gateway ? { gateway: t.gateway } : {}),
          url: t.url,
          regions: t.regions,
          period: Duration.seconds(t.periodSeconds),
          runbookUrl: t.runbookUrl,
          topics,
          thresholds: {
            [AlarmKind.critical]: { minFailingRegions: t.quorum, runsInARow: n },
            [AlarmKind.warning]: { runsInARow: n },
            [AlarmKind.deadMan]: { runsInARow: n },
          },
        }),
      );
    }
  }
}
