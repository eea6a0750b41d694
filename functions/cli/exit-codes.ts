/** The CLI's exit codes, and the one for a verdict's outcome: 0 healthy or degraded, 1 failed, 2 usage or config error, 3 inconclusive. */
import type { Outcome } from '../base/common/verdict.ts';

export const ExitCode = { ok: 0, failed: 1, usage: 2, inconclusive: 3 } as const;

export function exitCodeFor(outcome: Outcome): number {
  switch (outcome) {
    case 'healthy':
    case 'degraded':
      return ExitCode.ok;
    case 'failed':
      return ExitCode.failed;
    case 'inconclusive':
      return ExitCode.inconclusive;
  }
}
