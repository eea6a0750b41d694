/**
 * How one CloudFormation resource type is rehearsed. Every type in a template has exactly one of:
 * - `moto`: moto's CloudFormation creates it; the handler reads it back through the service's own API
 *   and compares it with the resolved template (a stack's CREATE_COMPLETE alone proves nothing);
 * - `api`: moto's CloudFormation skips it; the handler creates it through the service's API with every
 *   reference resolved, as CloudFormation would have, and reads it back;
 * - `impossible`: moto has no API for it at all; the handler says which test checks it instead, and
 *   checks what it can (that the names it refers to are deployed);
 * - `nothing`: CloudFormation's own bookkeeping, no service behind it.
 * A type with no handler fails the rehearsal, so a new resource type is rehearsed on purpose.
 */
import type { Aws, RegionClients } from '../aws.ts';
import type { Findings, Props } from '../properties.ts';

export interface ResourceContext {
  readonly aws: RegionClients;
  /** Clients of other regions (a subscription to a topic elsewhere, a cross-region export). */
  readonly all: Aws;
  readonly stackName: string;
  readonly logicalId: string;
  readonly props: Props;
  readonly findings: Findings;
  /** `stack/logicalId (Type)`, for messages. */
  readonly where: string;
  /**
   * Work done once every resource of the stack exists: a property moto refuses to apply before a
   * resource created later does (a bucket's access logging before the log bucket's policy).
   */
  later(work: () => Promise<void>): void;
}

/** What a created resource answers to `Ref` and `Fn::GetAtt`. */
export interface Deployed {
  readonly ref: string;
  readonly attributes?: Readonly<Record<string, string>>;
}

export interface CreatedByMoto {
  readonly by: 'moto';
  verify(ctx: ResourceContext, physicalId: string): Promise<void>;
  /** `Fn::GetAtt` through the service's API; absent when the type has no attribute anyone reads. */
  attribute?(aws: RegionClients, physicalId: string, name: string): Promise<string | undefined>;
  /**
   * Attributes moto's CloudFormation resolves differently from CloudFormation: what moto wrote into the
   * resources it created. Verifying those uses moto's value; everything else uses CloudFormation's.
   */
  readonly motoGetAtt?: Readonly<Record<string, { readonly why: string; fromCloudFormation(value: string): string }>>;
}

export interface CreatedByRehearsal {
  readonly by: 'api';
  /** The API call that stands in for CloudFormation, e.g. `cloudwatch:PutMetricAlarm`. */
  readonly api: string;
  /**
   * Kept out of the template moto sees (moto would try to run it, e.g. a custom resource's Lambda): the
   * rehearsal does its work, before CreateStack when other resources read its attributes.
   */
  readonly hiddenFromMoto?: boolean;
  create(ctx: ResourceContext): Promise<Deployed>;
}

export interface NotCreatable {
  readonly by: 'impossible';
  readonly why: string;
  /** The test that checks this resource type instead. */
  readonly checkedBy: string;
  /**
   * What can still be checked against what is deployed. Returns a stand-in `Ref` when other resources
   * read one (a CloudFront distribution names its response headers policy by id).
   */
  check(ctx: ResourceContext): Promise<Deployed | void>;
}

export interface NothingToCreate {
  readonly by: 'nothing';
  readonly why: string;
}

export type Handler = CreatedByMoto | CreatedByRehearsal | NotCreatable | NothingToCreate;

/** A physical id made up the way CloudFormation does for resources whose Ref is an opaque id. */
export function generatedId(stackName: string, logicalId: string): string {
  return `${stackName}-${logicalId}-${Math.random().toString(36).slice(2, 14).toUpperCase()}`;
}
