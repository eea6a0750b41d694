/**
 * `import { judge, Target } from 'mcp-canary'`: the engine the CLI and the scheduled run use, for your
 * own code. Parse a target once (`Target.parse`, errors name the field), then `judge(target)` resolves to
 * a Verdict and never throws for a failing endpoint; `judgeAll(target)` to every verdict of a run (a
 * gateway's, then one per backend).
 */
export { judge, judgeAll, type JudgeDeps } from './engine/judge/judge.ts';
export { Target, type TargetInput } from './base/config/schema/target.ts';
export { defineFleet, Fleet, type FleetInput } from './base/config/schema/fleet.ts';
export { CanaryError, CanaryErrorCode } from './base/common/errors.ts';
export {
  FailureClass,
  Outcome,
  Revision,
  WarningKind,
  worstOutcome,
  type ProbeName,
  type ProbeResult,
  type ServerInfo,
  type StepPlace,
  type TaskReport,
  type Verdict,
  type Warning,
} from './base/common/verdict.ts';
