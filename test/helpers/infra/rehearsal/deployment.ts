/** What a rehearsal deployed: every stack, every resource, who created it and how it resolved. */
import type { Aws } from './aws.ts';
import type { Handler } from './types/index.ts';

export interface DeployedResource {
  readonly stackName: string;
  readonly region: string;
  readonly logicalId: string;
  readonly type: string;
  /** moto's CloudFormation, the rehearsal through the service's API, nobody (impossible), or nothing to create. */
  readonly by: Handler['by'];
  /** What `Ref` answers. */
  readonly ref: string | undefined;
  readonly attributes: Readonly<Record<string, string>>;
  /** The properties as resolved against what was deployed: what was sent, or compared. */
  readonly resolved: Readonly<Record<string, unknown>>;
}

export interface DeployedStack {
  readonly stackName: string;
  readonly region: string;
  readonly resources: Map<string, DeployedResource>;
  /** The resolved outputs, by key. */
  readonly outputs: Map<string, unknown>;
}

export class Deployment {
  readonly stacks = new Map<string, DeployedStack>();
  /** Export name → value, per region (Fn::ImportValue reads these). */
  readonly exports = new Map<string, Map<string, unknown>>();
  /** How long each step took: `bootstrap`, `assets <stack>`, `deploy <stack>`, `links`. */
  readonly timings: Array<{ readonly step: string; readonly ms: number }> = [];

  constructor(readonly aws: Aws) {}

  resources(filter: (r: DeployedResource) => boolean = () => true): DeployedResource[] {
    return [...this.stacks.values()].flatMap((s) => [...s.resources.values()]).filter(filter);
  }

  ofType(type: string): DeployedResource[] {
    return this.resources((r) => r.type === type);
  }

  /** `4 stacks, 95 resources in 2100 ms (bootstrap 900, slowest deploy McpCanary-home 400, links 80)`. */
  summary(): string {
    const total = this.timings.reduce((n, t) => n + t.ms, 0);
    const ms = (step: string) => this.timings.find((t) => t.step === step)?.ms ?? 0;
    const slowest = this.timings.filter((t) => t.step.startsWith('deploy ')).sort((a, b) => b.ms - a.ms)[0];
    return `${this.stacks.size} stacks, ${this.resources().length} resources in ${total} ms (bootstrap ${ms('bootstrap')}, slowest ${slowest?.step} ${slowest?.ms}, links ${ms('links')})`;
  }

  /** `type → how → count`, e.g. `{ 'AWS::CloudWatch::Alarm': { api: 21 } }`. */
  tally(): Record<string, Partial<Record<Handler['by'], number>>> {
    const out: Record<string, Partial<Record<Handler['by'], number>>> = {};
    for (const r of this.resources()) {
      const t = (out[r.type] ??= {});
      t[r.by] = (t[r.by] ?? 0) + 1;
    }
    return out;
  }
}
