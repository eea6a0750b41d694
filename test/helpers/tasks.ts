/**
 * A hand-written SEP-2663 task front for the SDK's server (which serves no Tasks extension in 2.4): a
 * scripted tool's `tools/call` is answered with a CreateTaskResult when the client declared the extension
 * on the request (or always, to prove what an undeclared task does), and `tasks/get` walks the script one
 * state per poll; `tasks/cancel` is recorded. Every poll's time and echoed `requestState` are kept, so a
 * test can say how the canary polled.
 */
import type { Intercept } from '../../functions/demo/servers.ts';

const EXTENSION = 'io.modelcontextprotocol/tasks';
const CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** One state of a task as `tasks/get` answers it (the `result`, `error` or `inputRequests` inlined). */
export type TaskState =
  | { readonly status: 'working'; readonly pollInterval?: number }
  | { readonly status: 'completed'; readonly result: Record<string, unknown> }
  | { readonly status: 'failed'; readonly error: { code: number; message: string } }
  | { readonly status: 'input_required'; readonly inputRequests: Record<string, unknown> }
  | { readonly status: 'cancelled'; readonly statusMessage?: string }
  | { readonly status: string; readonly taskId?: string };

export interface TaskScript {
  /** The seed's pollInterval (ms); undefined leaves it out. */
  readonly pollInterval?: number;
  /** The state the n-th poll (0-based) answers; past the end, the last one. Or a function of the poll and the ms since creation. */
  readonly states: readonly TaskState[] | ((poll: number, sinceMs: number) => TaskState);
  /** Answer a task even to a client that did not declare the extension (a server breaking SEP-2663). */
  readonly evenUndeclared?: boolean;
}

export interface TaskFront {
  readonly intercept: Intercept;
  /** Each poll: when (ms since the task's creation) and the requestState it echoed. */
  readonly polls: { readonly atMs: number; readonly requestState: unknown }[];
  readonly cancels: string[];
  /** Whether each tools/call of a scripted tool declared the extension. */
  readonly declared: boolean[];
}

export function taskFront(scripts: Readonly<Record<string, TaskScript>>): TaskFront {
  const polls: { atMs: number; requestState: unknown }[] = [];
  const cancels: string[] = [];
  const declared: boolean[] = [];
  const tasks = new Map<string, { script: TaskScript; created: number }>();
  let n = 0;
  const base = (taskId: string, created: number) => ({
    taskId,
    createdAt: new Date(created).toISOString(),
    lastUpdatedAt: new Date().toISOString(),
    ttl: 60,
  });
  const intercept: Intercept = (method, body) => {
    const id = body.id;
    const params = (body.params ?? {}) as Record<string, unknown>;
    if (method === 'tools/call') {
      const script = scripts[String(params.name)];
      if (!script) return undefined;
      const caps = ((params._meta as Record<string, unknown> | undefined)?.[CAPABILITIES] ?? {}) as {
        extensions?: Record<string, unknown>;
      };
      const said = caps.extensions?.[EXTENSION] !== undefined;
      declared.push(said);
      if (!said && !script.evenUndeclared) return undefined;
      const taskId = `task-${++n}`;
      const created = Date.now();
      tasks.set(taskId, { script, created });
      const seed = { ...base(taskId, created), status: 'working', requestState: 'rs-0' };
      return {
        jsonrpc: '2.0',
        id,
        result: { resultType: 'task', ...seed, ...(script.pollInterval !== undefined ? { pollInterval: script.pollInterval } : {}) },
      };
    }
    if (method === 'tasks/get') {
      const taskId = String(params.taskId);
      const task = tasks.get(taskId);
      if (!task) return { jsonrpc: '2.0', id, error: { code: -32602, message: `unknown task ${taskId}` } };
      const poll = polls.length;
      const sinceMs = Date.now() - task.created;
      polls.push({ atMs: sinceMs, requestState: params.requestState });
      const { states } = task.script;
      const state = typeof states === 'function' ? states(poll, sinceMs) : states[Math.min(poll, states.length - 1)]!;
      const interval =
        'pollInterval' in state
          ? { pollInterval: state.pollInterval }
          : task.script.pollInterval !== undefined
            ? { pollInterval: task.script.pollInterval }
            : {};
      return {
        jsonrpc: '2.0',
        id,
        result: { resultType: 'complete', ...base(taskId, task.created), ...interval, requestState: `rs-${poll + 1}`, ...state },
      };
    }
    if (method === 'tasks/cancel') {
      cancels.push(String(params.taskId));
      return { jsonrpc: '2.0', id, result: { resultType: 'complete' } };
    }
    return undefined;
  };
  return { intercept, polls, cancels, declared };
}
