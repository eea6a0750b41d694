/** A synthesized CloudFormation template, as the quota checks read it. */

export interface CfnResource {
  readonly Type: string;
  readonly Properties?: Record<string, unknown>;
  readonly Metadata?: Record<string, unknown>;
  readonly DependsOn?: string | readonly string[];
}

export interface CfnTemplate {
  readonly Description?: string;
  readonly Resources?: Record<string, CfnResource>;
  readonly Outputs?: Record<string, unknown>;
  readonly Parameters?: Record<string, { readonly Type?: string; readonly Default?: unknown }>;
  readonly Mappings?: Record<string, Record<string, Record<string, unknown>>>;
}

/** Resolves template values to their longest form (longest.ts); what the per-type names need of it. */
export interface Resolver {
  readonly region: string;
  readonly account: string;
  readonly partition: string;
  readonly urlSuffix: string;
  /** `arn:<partition>:<service>:<region>:<account>:<resource>`; pass `''` for a global service's region. */
  arn(service: string, resource: string, region?: string): string;
  /** A value that AWS receives as a string, resolved. */
  string(v: unknown): string;
}

/** A string of the given length: what an unknown name or value counts as. */
export function filler(length: number): string {
  return 'x'.repeat(length);
}
