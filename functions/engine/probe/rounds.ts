/**
 * Pure: the 2026-07-28 multi-round-trip results (SEP-2322) in on-call's words. The SDK client runs the
 * rounds itself, as it does for an agent (session.ts turns it on): a result `input_required` with only
 * `requestState` is the same request again with that state echoed byte for byte (load shedding), after
 * the SDK's pacing, up to its round cap and within the run's budget; one with `inputRequests` is
 * dispatched to the client's handlers, and the canary registers none — it has no user to ask, no model
 * to sample, no roots. What the SDK then throws carries a code (`SdkErrorCode`) and data; this reads
 * those, never the message text.
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { shownName } from '../../base/common/names.ts';
import { oneLine } from '../../base/common/redact.ts';
import type { Fault } from '../../base/common/step.ts';
import { FailureClass } from '../../base/common/verdict.ts';
import type { Exchange } from '../../base/net/exchange.ts';

const UNATTENDED = 'a canary tool must answer unattended';

/** What each embedded input request asks of the client, for a detail. */
const ASKS: Readonly<Record<string, string>> = {
  'elicitation/create': 'user input (elicitation)',
  'sampling/createMessage': 'a model completion (sampling)',
  'roots/list': "the client's roots",
};

/**
 * The class of an SDK error about a non-complete result, or null when the error is not one. `calls` are
 * the wire's exchanges of this step, in order (each round is one); `budgetSpent`, whether the run's budget
 * has run out (it ends the SDK's pacing between rounds with a bare RequestTimeout).
 */
export function classifyRounds(what: string, error: unknown, calls: readonly Exchange[], budgetSpent = false): Fault | null {
  if (!(error instanceof SdkError)) return null;
  const data = (error.data ?? {}) as Record<string, unknown>;
  const rounds = calls.filter((x) => x.resultType === 'input_required').length;
  const onTool = calls.at(-1)?.rpcMethod === 'tools/call';
  switch (error.code) {
    case SdkErrorCode.UnsupportedResultType: {
      // An identifier the server chose: look-alike and invisible characters as code points.
      const kind = shownName(typeof data.resultType === 'string' ? data.resultType : (calls.at(-1)?.resultType ?? 'unknown'), 40);
      const what2 = kind === 'task' ? ' (a task: the work goes on and answers later)' : '';
      return {
        failure: onTool ? FailureClass.toolError : FailureClass.protocol,
        detail: `${what}: the server answered resultType "${kind}"${what2}, a kind of result the canary's MCP client cannot consume — agents on the same client fail the same way; ${onTool ? 'a canary tool must answer within the call' : 'this step must answer complete'}`,
        retryable: false,
      };
    }
    case SdkErrorCode.CapabilityNotSupported: {
      if (typeof data.method !== 'string') return null;
      const asked = calls.at(-1)?.inputRequests?.length
        ? calls.at(-1)!.inputRequests!.join(', ')
        : `${shownName(data.method, 60)} ("${shownName(String(data.key), 40)}")`;
      return {
        failure: FailureClass.toolError,
        detail: `${what}: the ${onTool ? 'tool' : 'server'} asked for ${ASKS[data.method] ?? shownName(data.method, 60)} — input_required: ${oneLine(asked, 200)} — which the canary cannot grant${rounds > 1 ? ` (round ${rounds})` : ''}; ${UNATTENDED}`,
        retryable: false,
      };
    }
    case SdkErrorCode.InputRequiredRoundsExceeded: {
      const cap = typeof data.rounds === 'number' ? data.rounds : rounds;
      // Off tools/call no tool ran: the MCP server itself keeps shedding the request (tools/list, …).
      return {
        failure: onTool ? FailureClass.toolError : FailureClass.serverError,
        detail: `${what}: the server still answered input_required after ${cap} rounds (requestState echoed each time, the MCP client's cap) — ${onTool ? 'the call never completes' : 'this step never completes'}`,
        retryable: false,
      };
    }
    case SdkErrorCode.RequestTimeout:
      // The call's maxTotalTimeout is what was left of the run's budget (tool.ts): it ran out between rounds.
      if (rounds === 0 || (data.maxTotalTimeout === undefined && !budgetSpent)) return null;
      return {
        failure: FailureClass.timeout,
        detail: `${what}: the run's budget ran out${roundsSoFar(calls)}: the call never completed`,
        retryable: false,
      };
    case SdkErrorCode.InvalidResult:
      if (typeof data.key === 'string' || data.violation === 'input-required-missing-both') {
        return {
          failure: FailureClass.protocol,
          detail: `${what}: an input_required result that is not valid MCP (${oneLine(error.message, 200)})`,
          retryable: false,
        };
      }
      return null;
    default:
      return null;
  }
}

/** ", after N input_required round(s) with requestState echoed": what a call that ran out of time was doing. */
export function roundsSoFar(calls: readonly Exchange[]): string {
  const rounds = calls.filter((x) => x.resultType === 'input_required').length;
  return rounds > 0 ? `, after ${rounds} input_required round(s), each retried with requestState echoed` : '';
}
