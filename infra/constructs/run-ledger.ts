/**
 * The run ledger of one probe region: a DynamoDB table where each scheduled run of a target claims
 * `(period, target)` before it judges it, so a delivery AWS makes twice (Scheduler's at-least-once, Lambda's asynchronous
 * queue) counts once (functions/lambdas/run/ledger.ts says why, and what a duplicate does).
 *
 * On demand (one claim per target and run: 43,200 writes per target·region a month at one run a
 * minute, about 3 cents), records expire by TTL an hour after they are written, and nothing in it outlives
 * the stack: it holds only "this period was run".
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Effect, PolicyStatement, type IRole } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { EnvVar } from '../../functions/base/config/env/env.ts';
import { LEDGER_KEY_ATTRIBUTE, LEDGER_TTL_ATTRIBUTE } from '../../functions/base/common/run-record.ts';

/**
 * What a run does to the ledger: claim, with one conditional PutItem that returns the claim it found
 * (`ReturnValuesOnConditionCheckFailure`). Nothing else: no completion is recorded (nobody reads it), and
 * a claim is never given back, so a run that crashed after publishing some datapoints can never be run
 * again by a duplicate.
 */
export const LEDGER_ACTIONS = ['dynamodb:PutItem'] as const;

export interface RunLedgerTableProps {
  /** The table's name: `<fleet>-run-ledger`, the same in every probe region. */
  readonly tableName: string;
}

export class RunLedgerTable extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: RunLedgerTableProps) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      tableName: props.tableName,
      partitionKey: { name: LEDGER_KEY_ATTRIBUTE, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: LEDGER_TTL_ATTRIBUTE,
      encryption: TableEncryption.AWS_MANAGED,
      removalPolicy: RemovalPolicy.DESTROY,
      // Billed by table size, which an hour of claims keeps near zero; it keeps the table cdk-nag clean.
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    });
  }

  /** Lets the run functions claim runs here, and tells them the table. */
  grantRuns(role: IRole, functions: Iterable<IFunction & { addEnvironment(key: string, value: string): unknown }>): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({ effect: Effect.ALLOW, actions: [...LEDGER_ACTIONS], resources: [this.table.tableArn] }),
    );
    for (const fn of functions) fn.addEnvironment(EnvVar.runLedger, this.table.tableName);
  }
}
