/**
 * The public exports stay what they were before the floors moved: `mcp-canary` (functions/index.ts)
 * and `mcp-canary/cdk` (infra/index.ts), the values at run time and the types at typecheck.
 */
import { describe, expect, it } from 'vitest';
import type { FleetInput, JudgeDeps, ProbeName, ProbeResult, ServerInfo, TargetInput, Verdict, Warning } from '../../../functions/index.ts';
import type { FleetInput as CdkFleetInput, McpCanaryFleetOptions } from '../../../infra/index.ts';

/** The exported types: one that goes missing fails the typecheck. */
type _PublicTypes = [
  JudgeDeps,
  TargetInput,
  FleetInput,
  ProbeName,
  ProbeResult,
  ServerInfo,
  Verdict,
  Warning,
  CdkFleetInput,
  McpCanaryFleetOptions,
];

describe('the package exports', () => {
  it('mcp-canary exports the engine, the schemas, the error family and the shared words', async () => {
    const engine = await import('../../../functions/index.ts');
    expect(Object.keys(engine).sort()).toEqual(
      [
        'CanaryError',
        'CanaryErrorCode',
        'FailureClass',
        'Fleet',
        'Outcome',
        'Revision',
        'Target',
        'WarningKind',
        'defineFleet',
        'judge',
        'judgeAll',
        'worstOutcome',
      ].sort(),
    );
  });

  it('mcp-canary/cdk exports the construct and defineFleet', async () => {
    const cdk = await import('../../../infra/index.ts');
    expect(Object.keys(cdk).sort()).toEqual(['McpCanaryFleet', 'defineFleet']);
  });
});
