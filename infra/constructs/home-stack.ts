/**
 * The home region's shared parts: the four topics (pages, tickets, canary owner, briefs), the brief
 * function and its rule, the canary owner's alarms on verdicts that cannot judge (one per rate), and the
 * fleet dashboard. The target alarms live in alarm stacks beside it and find the topics by name.
 */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import type { FleetNames, TopicKind } from '../plan/names.ts';
import type { FleetPlan } from '../plan/plan.ts';
import { BriefFunction } from './brief-function.ts';
import { FleetDashboard } from './dashboard.ts';
import { alarmOnInconclusiveVerdicts } from './inconclusive-alarms.ts';
import { alarmOnDeliveryDeadLetters, deliveryDeadLetterQueue } from './delivery-dlq.ts';
import { FleetTopic } from './topics.ts';
import { Refresher, refreshEventOf } from './refresher.ts';

const TOPICS: ReadonlyArray<{ kind: TopicKind; id: string; display: string; what: string }> = [
  { kind: 'pages', id: 'Pages', display: 'mcp-canary pages', what: 'critical alarms, ALARM and OK: subscribe PagerDuty/JSM here' },
  { kind: 'tickets', id: 'Tickets', display: 'mcp-canary tickets', what: 'warning alarms (degraded, failing below quorum, inconclusive)' },
  {
    kind: 'canary-owner',
    id: 'CanaryOwner',
    display: 'mcp-canary: the canary itself',
    what: "dead-man, verdicts that cannot judge, and the canary functions' own alarms",
  },
  { kind: 'briefs', id: 'Briefs', display: 'mcp-canary briefs', what: 'a readable brief of every alarm change: point a chat channel here' },
];

export interface HomeStackProps extends StackProps {
  readonly names: FleetNames;
  readonly plan: FleetPlan;
  /** @default - one month */
  readonly logRetention?: RetentionDays;
}

export class HomeStack extends Stack {
  readonly topics = new Map<TopicKind, FleetTopic>();
  readonly brief: BriefFunction;

  constructor(scope: Construct, id: string, props: HomeStackProps) {
    super(scope, id, props);
    const { names, plan } = props;
    const notify = plan.fleet.notify;
    const subscribers: Record<TopicKind, typeof notify.pages> = {
      pages: notify.pages,
      tickets: notify.tickets,
      'canary-owner': notify.canaryOwner,
      briefs: notify.briefs,
    };
    const deadLetterQueue = deliveryDeadLetterQueue(this, names);
    for (const t of TOPICS) {
      const topic = new FleetTopic(this, t.id, {
        topicName: names.topic(t.kind),
        displayName: t.display,
        subscriptions: subscribers[t.kind],
        // The briefs topic is published to by the brief function (IAM), never by an alarm.
        alarmNamePattern: t.kind === 'briefs' ? undefined : names.alarmPattern,
        deadLetterQueue,
      });
      this.topics.set(t.kind, topic);
      new CfnOutput(this, `${t.id}TopicArn`, { value: topic.topic.topicArn, description: t.what });
    }
    alarmOnDeliveryDeadLetters(this, names, deadLetterQueue, this.topics.get('canary-owner')!.topic.topicArn);
    alarmOnInconclusiveVerdicts(this, {
      names,
      namespace: plan.namespace,
      periodsSeconds: plan.targets.map((t) => t.periodSeconds),
      runsInARow: plan.failureThreshold,
      ownerTopicArn: this.topics.get('canary-owner')!.topic.topicArn,
    });
    this.brief = new BriefFunction(this, 'Brief', {
      names,
      briefTopicArn: this.topics.get('briefs')!.topic.topicArn,
      canaryOwnerTopicArn: this.topics.get('canary-owner')!.topic.topicArn,
      probeRegions: plan.probeRegions,
      failureThreshold: plan.failureThreshold,
      quorums: plan.quorums,
      logRetention: props.logRetention,
    });
    // Only a fleet with delegated grants in Secrets Manager gets the refresher (functions/lambdas/refresh).
    if (refreshEventOf(plan).grants.length > 0) {
      new Refresher(this, 'Refresher', {
        names,
        plan,
        canaryOwnerTopicArn: this.topics.get('canary-owner')!.topic.topicArn,
        ...(props.logRetention ? { logRetention: props.logRetention } : {}),
      });
    }
    new FleetDashboard(this, 'Dashboard', {
      names,
      namespace: plan.namespace,
      probeRegions: plan.probeRegions,
      targets: plan.alarmed.map((t) => t.name),
    });
  }
}
