/**
 * A tool call that runs as a task (SEP-2663, the Tasks extension of 2026-07-28), followed to its end:
 * `tasks/get` at the server's `pollInterval` (clamped: at least MIN_POLL_MS, never past the deadline),
 * within the run's budget, `requestState` echoed as the server last gave it; `tasks/cancel` at the
 * deadline; then the terminal state judged — `completed` is the tool's answer (its `isError` and
 * expectations judged as any other), `failed` is the server's JSON-RPC error, `cancelled` by the server
 * and `input_required` are named, still `working` at the deadline is a `timeout` naming the task.
 *
 * Hand-written where @modelcontextprotocol/client 2.4 stops: its `callTool` refuses a `resultType:
 * "task"` answer (SdkErrorCode.UnsupportedResultType) and has no task poller, so the CreateTaskResult is
 * read from the wire's copy of the answer. The polls themselves go through the SDK: `client.request` with
 * an explicit schema sends `tasks/get` and `tasks/cancel` on 2026-07-28 (the methods SEP-2663 reuses)
 * with the era's envelope and the `Mcp-Name: <taskId>` routing header.
 */
import { ProtocolError, type CallToolResult } from '@modelcontextprotocol/client';
import * as z from 'zod';
import { parseExactJson } from '../../base/common/exact-json.ts';
import { oneLine } from '../../base/common/redact.ts';
import type { RunContext } from '../../base/common/run-context.ts';
import type { Fault } from '../../base/common/step.ts';
import { FailureClass, type TaskReport } from '../../base/common/verdict.ts';
import type { Session } from './session.ts';

/** A pollInterval of 0 (or none) is polled no faster than this: a canary must not hammer a server. */
export const MIN_POLL_MS = 100;
/** When the server suggests no interval. */
export const DEFAULT_POLL_MS = 1_000;
/** Kept back from the budget so `tasks/cancel` can still go out at the deadline. */
export const CANCEL_RESERVE_MS = 1_000;

const Task = z.looseObject({
  taskId: z.string().min(1),
  status: z.string(),
  statusMessage: z.string().optional(),
  pollInterval: z.number().optional(),
  requestState: z.string().optional(),
  result: z.looseObject({}).optional(),
  error: z.looseObject({ code: z.unknown().optional(), message: z.unknown().optional() }).optional(),
  inputRequests: z.record(z.string(), z.looseObject({ method: z.unknown().optional() })).optional(),
});
type Task = z.infer<typeof Task>;

export interface TaskContext {
  /** The tool's name as a detail shows it. */
  readonly name: string;
  readonly timeoutMs: number;
  readonly run: Pick<RunContext, 'signal' | 'remainingMs' | 'now' | 'sleep'>;
  /** When the call went out (on `now`): the time to the terminal state counts from there. */
  readonly startedAt: number;
}

export type TaskEnd =
  | { readonly ok: true; readonly result: CallToolResult; readonly report: TaskReport }
  | { readonly ok: false; readonly fault: Fault; readonly report?: TaskReport };

/** The CreateTaskResult in the answer's JSON text, or null when the text holds none. */
export function createdTask(answerText: string | null | undefined): Task | null {
  if (!answerText) return null;
  try {
    const msg = parseExactJson(answerText);
    const one = Array.isArray(msg) ? msg.find((m) => m && typeof m === 'object' && 'result' in m) : msg;
    const parsed = Task.safeParse((one as { result?: unknown } | undefined)?.result);
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Polls the task to a terminal state or the deadline; cancels it at the deadline. */
export async function followTask(s: Session, created: Task, c: TaskContext): Promise<TaskEnd> {
  let task = created;
  let polls = 0;
  const id = oneLine(created.taskId, 80);
  const report = (terminal: boolean): TaskReport => ({
    taskId: id,
    status: oneLine(task.status, 40),
    polls,
    terminalMs: terminal ? Math.round(c.run.now() - c.startedAt) : null,
  });
  while (task.status === 'working') {
    // The last poll must still leave room for its own answer and the cancel; an interval longer than what
    // is left (an hour) is cut to one last poll before the deadline.
    const left = c.run.remainingMs() - reserve(c) * 2;
    if (left < MIN_POLL_MS) return cancelled(s, task, c, report(false));
    await c.run.sleep(Math.min(pollWait(task.pollInterval), left));
    let next: Task;
    try {
      polls++;
      next = await s.client.request({ method: 'tasks/get', params: withState(task) }, Task, {
        timeout: Math.min(c.timeoutMs, Math.max(1, c.run.remainingMs() - reserve(c))),
        signal: c.run.signal,
      });
    } catch (e) {
      if (c.run.remainingMs() <= reserve(c)) return cancelled(s, task, c, report(false));
      // The server answered the poll with a JSON-RPC error: its words, naming the poll (not the call).
      if (e instanceof ProtocolError)
        return {
          ok: false,
          fault: toolError(
            `tools/call: tasks/get for task ${id} of ${c.name} answered JSON-RPC error ${e.code} "${oneLine(e.message, 200)}"`,
          ),
          report: report(false),
        };
      throw e;
    }
    // A poll answers the same task; a server that answers another one is not following the extension.
    if (next.taskId !== created.taskId)
      return { ok: false, fault: protocol(c, `tasks/get for task ${id} answered task ${oneLine(next.taskId, 80)}`), report: report(false) };
    task = next;
  }
  return terminal(task, c, report(true));
}

/** The server's interval, clamped: never below the floor; the deadline bounds it in the loop. */
export function pollWait(pollInterval: number | undefined): number {
  if (pollInterval === undefined || !Number.isFinite(pollInterval)) return DEFAULT_POLL_MS;
  return Math.max(MIN_POLL_MS, Math.round(pollInterval));
}

function terminal(task: Task, c: TaskContext, report: TaskReport): TaskEnd {
  const id = report.taskId;
  const words = task.statusMessage ? `: ${oneLine(task.statusMessage, 200)}` : '';
  switch (task.status) {
    case 'completed': {
      const result = task.result as CallToolResult | undefined;
      if (!result || !Array.isArray((result as { content?: unknown }).content))
        return { ok: false, fault: protocol(c, `task ${id} completed without a tool result`), report };
      return { ok: true, result, report };
    }
    case 'failed': {
      const e = task.error;
      const error = e ? `JSON-RPC error ${String(e.code ?? '?')} "${oneLine(String(e.message ?? ''), 200)}"` : 'no error given';
      return {
        ok: false,
        fault: toolError(`tools/call: task ${id} of ${c.name} failed after ${report.terminalMs} ms: ${error}${words}`),
        report,
      };
    }
    case 'cancelled':
      return { ok: false, fault: toolError(`tools/call: task ${id} of ${c.name} was cancelled by the server${words}`), report };
    case 'input_required': {
      const asked = Object.entries(task.inputRequests ?? {}).map(([k, r]) => `${oneLine(String(r.method ?? '?'), 40)} (${oneLine(k, 40)})`);
      return {
        ok: false,
        fault: toolError(
          `tools/call: task ${id} of ${c.name} needs input — input_required${asked.length ? `: ${oneLine(asked.join(', '), 200)}` : ''}${words} — which the canary cannot give; a canary tool must answer unattended`,
        ),
        report,
      };
    }
    default:
      return {
        ok: false,
        fault: protocol(c, `task ${id} has status "${oneLine(task.status, 40)}", which SEP-2663 does not define`),
        report,
      };
  }
}

/** The deadline: `tasks/cancel` sent (its answer is not waited past the reserve), and a timeout naming the task. */
async function cancelled(s: Session, task: Task, c: TaskContext, report: TaskReport): Promise<TaskEnd> {
  // Not the run's signal: the cancel goes out at the deadline, within the reserve kept for it.
  await s.client.request({ method: 'tasks/cancel', params: withState(task) }, z.looseObject({}), { timeout: reserve(c) }).catch(() => {});
  return {
    ok: false,
    fault: {
      failure: FailureClass.timeout,
      retryable: false,
      detail: `tools/call: task ${report.taskId} of ${c.name} was still ${oneLine(task.status, 40)} at the run's deadline, ${Math.round(c.run.now() - c.startedAt)} ms after the call (${report.polls} tasks/get poll(s)); tasks/cancel sent`,
    },
    report,
  };
}

/** What is kept back for one request at the deadline: the cancel. */
function reserve(c: TaskContext): number {
  return Math.max(1, Math.min(c.timeoutMs, CANCEL_RESERVE_MS));
}

/** `tasks/get` and `tasks/cancel` params: the task, and the server's latest `requestState`, echoed as given. */
function withState(task: Task): { taskId: string; requestState?: string } {
  return { taskId: task.taskId, ...(task.requestState !== undefined ? { requestState: task.requestState } : {}) };
}

function toolError(detail: string): Fault {
  return { failure: FailureClass.toolError, retryable: false, detail };
}

function protocol(c: TaskContext, what: string): Fault {
  return { failure: FailureClass.protocol, retryable: false, detail: `tools/call: ${c.name}: ${what}` };
}
