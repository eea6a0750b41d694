/**
 * The quota checks at synth, as a cdk policy-validation plugin (the API cdk-nag uses). A plugin runs
 * after the templates are written, so it measures exactly the files `cdk deploy` uploads, and it runs
 * in every app that synthesizes an `McpCanaryFleet`: the fleet registers it on its own stage, so a
 * user's app needs no extra line. A finding fails synth: `cdk synth` prints cdk's validation report
 * (each finding's one-line message, then the template and logical id) and the app throws; the default
 * app (app.ts) turns that into exit 2, like every config error. Quotas an account can have raised are
 * `error`s that `Validations.of(scope).acknowledge(...)` can accept; the others are `fatal`.
 */
import { readFileSync } from 'node:fs';
import {
  CfnElement,
  Stack,
  STACK_RESOURCE_LIMIT_CONTEXT,
  Stage,
  Validations,
  type IPolicyValidationContext,
  type IPolicyValidationPlugin,
  type PolicyValidationPluginReport,
} from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { checkStack, type Finding } from './check.ts';
import type { CfnTemplate } from './template.ts';

export const QUOTA_PLUGIN_NAME = 'mcp-canary-quotas';

export class QuotaChecks implements IPolicyValidationPlugin {
  readonly name = QUOTA_PLUGIN_NAME;
  /** What the last synth found: app.ts reads it to exit 2. */
  findings: readonly Finding[] = [];
  /** Alarms a stack may create at once: the fleet sets its pace here (infra/quotas/runtime.ts). */
  alarmsInFlight: number | undefined;

  /** @param scopePath only stacks under this construct path are checked (the fleet's own). */
  constructor(private readonly scopePath: string) {}

  validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const mine = context.stackTemplates.filter((s) => s.stackConstructPath.startsWith(`${this.scopePath}/`));
    const found: Array<{ finding: Finding; templatePath: string }> = [];
    for (const s of mine) {
      const stack = findStack(context.appConstruct, s.stackConstructPath);
      const text = readFileSync(s.templatePath, 'utf8');
      const findings = checkStack({
        stackName: stack?.stackName ?? s.stackConstructPath,
        template: JSON.parse(text) as CfnTemplate,
        templateBytes: Buffer.byteLength(text),
        region: s.region,
        account: s.accountId,
        pathOf: stack ? pathsOf(stack) : undefined,
        alarmsInFlight: this.alarmsInFlight,
      });
      found.push(...findings.map((finding) => ({ finding, templatePath: s.templatePath })));
    }
    this.findings = found.map((f) => f.finding);
    return {
      success: found.length === 0,
      violations: found.map(({ finding: f, templatePath }) => ({
        ruleName: f.rule,
        description: f.message,
        fix: `AWS documents the figure at ${f.source}`,
        severity: f.adjustable ? 'error' : 'fatal',
        violatingResources: [
          {
            resourceLogicalId: f.logicalId ?? 'Template',
            templatePath,
            locations: [f.logicalId ? `Resources/${f.logicalId}` : 'Template'],
          },
        ],
      })),
    };
  }
}

/**
 * Registers the checks for the stacks under `scope` on its stage. Call it before `scope` has children:
 * it also turns off cdk's own 500-resource check for them, which throws a stack trace before any plugin
 * runs; the `cfn-resources` check reports the same stack in one line, with the fix.
 */
export function addQuotaChecks(scope: IConstruct): QuotaChecks {
  scope.node.setContext(STACK_RESOURCE_LIMIT_CONTEXT, 0);
  const checks = new QuotaChecks(scope.node.path);
  const stage = Stage.of(scope);
  if (stage) Validations.of(stage).addPlugins(checks);
  return checks;
}

function findStack(root: IConstruct, path: string): Stack | undefined {
  let at: IConstruct | undefined = root;
  for (const id of path.split('/').slice(root.node.path ? root.node.path.split('/').length : 0)) at = at?.node.tryFindChild(id);
  return at && Stack.isStack(at) ? at : undefined;
}

/** Logical id → construct path, built on first use (only a stack with a finding needs it). */
function pathsOf(stack: Stack): (logicalId: string) => string | undefined {
  let paths: Map<string, string> | undefined;
  return (logicalId) => {
    paths ??= new Map(
      stack.node
        .findAll()
        .filter((c): c is CfnElement => CfnElement.isCfnElement(c) && Stack.of(c) === stack)
        .map((c) => [stack.resolve(c.logicalId) as string, c.node.path]),
    );
    return paths.get(logicalId);
  };
}
