/**
 * The alarms of the targets hashed into one shard, in the home region. Three alarms per target and
 * nothing else, so a shard holds ~160 targets under CloudFormation's 500 resources; a target's shard
 * is `fnv1a(name) mod alarmStacks`, so adding or removing other targets never moves its alarms.
 */
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { AlarmKind } from '../../functions/brief/alarm-words.ts';
import type { FleetNames } from '../names.ts';
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
    const topicArns = {
      [AlarmKind.critical]: topicArn(this, names.topic('pages')),
      [AlarmKind.warning]: topicArn(this, names.topic('tickets')),
      [AlarmKind.deadMan]: topicArn(this, names.topic('canary-owner')),
    };
    for (const t of props.targets) {
      this.targetAlarms.push(new TargetAlarms(this, t.name, {
        names,
        namespace: props.namespace,
        target: t.name,
        url: t.url,
        regions: t.regions,
        period: Duration.seconds(t.periodSeconds),
        runbookUrl: t.runbookUrl,
        topicArns,
        thresholds: {
          [AlarmKind.critical]: { minFailingRegions: t.quorum, runsInARow: n },
          [AlarmKind.warning]: { minUnhealthyRegions: 1, runsInARow: n },
          [AlarmKind.deadMan]: { minReportingRegions: t.regions.length, runsInARow: n },
        },
      }));
    }
  }
}
