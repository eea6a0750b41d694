/**
 * The alarms of the targets hashed into one shard, in the home region. Three alarms per target and
 * nothing else, so a shard holds ~160 targets under CloudFormation's 500 resources; a target's shard
 * is `fnv1a(name) mod alarmStacks`, so adding or removing other targets never moves its alarms.
 */
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { AlarmKind } from '../../functions/brief/alarm-words.ts';
import type { FleetNames, TopicKind } from '../names.ts';
import type { TargetPlan } from '../plan.ts';
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
