/**
 * A gateway's backends: an aggregating gateway (toolhive vMCP, ContextForge, AgentCore Gateway, an npm
 * aggregator) merges several MCP servers into one endpoint and names each backend's tools with a prefix
 * (`<backend>___<tool>` by default). A target that lists its backends is judged once per run — one
 * session, one `tools/list` — and each backend gets its own verdict, named `<gateway>/<backend>`.
 *
 * A backend's `tool` and `flow` name tools as the backend itself names them, without the prefix: the
 * canary adds it (`prefixedFlow`). So a backend's canary reads the same whether it is called directly or
 * through the gateway, and moving a backend to another gateway changes only its `prefix`.
 */
import * as z from 'zod';
import { CanaryTool } from './canary-tool.ts';
import { CatalogSetting } from './catalog.ts';
import { checkFlow, FlowSetting, type FlowStep } from './flow.ts';

/** The separator of the default prefix, as toolhive vMCP and AgentCore Gateway name a backend's tools. */
export const DEFAULT_PREFIX_SEPARATOR = '___';

export const Backend = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'must be 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit')
      .meta({
        description:
          "Names the backend: its verdict, metric, page and ticket are `<gateway>/<backend>`; unique among the gateway's backends",
      }),
    prefix: z
      .string()
      .min(1, 'is empty: give the prefix the gateway puts before this backend\'s tool names, e.g. "github___"')
      .optional()
      .meta({
        description:
          "What the gateway puts before this backend's tool names; the backend's `tool` and `flow` name tools without it, and the canary adds it",
        defaultText: '`<name>___`',
      }),
    tool: CanaryTool.optional().meta({
      description: "The backend's canary tool, named without the prefix (as `tool` of a target)",
      defaultText: 'none',
    }),
    flow: FlowSetting.optional().meta({
      description: "The backend's steps instead of one `tool`, tools named without the prefix (as `flow` of a target)",
      defaultText: 'none',
    }),
    catalog: CatalogSetting.optional().meta({
      description:
        "The backend's recorded tools, named without the prefix: the gateway's `tools/list` entries with this prefix are compared with it, and drift is a `catalog_drift` warning on the backend's verdict",
      defaultText: 'none: no drift check',
    }),
  })
  .strict();
export type Backend = z.output<typeof Backend>;

export const BackendsSetting = z.array(Backend).min(1, 'is empty: list at least one backend, or leave `backends` out');

/** The name a backend's verdict, metric, page and ticket carry. */
export function backendTargetName(gateway: string, backend: string): string {
  return `${gateway}/${backend}`;
}

/** The prefix the gateway gives a backend's tools. */
export function prefixOf(b: Pick<Backend, 'name' | 'prefix'>): string {
  return b.prefix ?? `${b.name}${DEFAULT_PREFIX_SEPARATOR}`;
}

/** The tools of a gateway's list behind `prefix`, the prefix taken off: the backend's own names (its drift, its snapshot). */
export function behindPrefix<T extends { readonly name: string }>(listed: readonly T[], prefix: string): T[] {
  return listed.filter((t) => t.name.startsWith(prefix)).map((t) => ({ ...t, name: t.name.slice(prefix.length) }));
}

/** A backend's steps as the gateway names them: its tool or flow, each tool name behind the prefix. */
export function prefixedFlow(b: Backend, flowOf: (t: Backend) => FlowStep[]): FlowStep[] {
  const prefix = prefixOf(b);
  return flowOf(b).map((s) => (s.kind === 'tools/call' ? { ...s, name: `${prefix}${s.name}` } : s));
}

/** How many steps the backends run in all (each has at least one: its tool or its flow). */
export function backendSteps(backends: readonly Backend[]): number {
  return backends.reduce((n, b) => n + (b.flow?.length ?? 1), 0);
}

/**
 * The backends' own mistakes, as issues on `backends`: a duplicate name, a backend with neither a tool
 * nor a flow (or both), a prefix that begins another's (a tool would belong to both), a flow's own
 * mistakes; and the whole run's steps — the gateway's and every backend's, in one session — that
 * cannot fit the budget.
 */
export function checkBackends(
  backends: readonly Backend[],
  gatewaySteps: number,
  timeoutMs: number,
  budgetMs: number,
  ctx: z.RefinementCtx,
): void {
  const names = new Map<string, number>();
  backends.forEach((b, i) => {
    const at = (...path: PropertyKey[]) => ['backends', i, ...path];
    const first = names.get(b.name);
    if (first !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: at('name'),
        message: `"${b.name}" is already the name of backend ${first + 1}: each backend's name must be unique`,
      });
    else names.set(b.name, i);
    if (b.tool === undefined && b.flow === undefined)
      ctx.addIssue({
        code: 'custom',
        path: at(),
        message: `("${b.name}") has neither a tool nor a flow: give it a read-only canary tool, named without its prefix, e.g. { "tool": { "name": "get_status" } }`,
      });
    if (b.tool !== undefined && b.flow !== undefined)
      ctx.addIssue({ code: 'custom', path: at('flow'), message: 'and tool are both given: a backend has one tool or a flow' });
    // The flow's own checks, placed under this backend; the budget is checked once for the whole run below.
    if (b.flow)
      checkFlow(b.flow, timeoutMs, Number.POSITIVE_INFINITY, {
        ...ctx,
        addIssue: (issue) =>
          ctx.addIssue(typeof issue === 'string' ? issue : ({ ...issue, path: [...at(), ...(issue.path ?? [])] } as typeof issue)),
      } as z.RefinementCtx);
  });
  backends.forEach((b, i) => {
    const mine = prefixOf(b);
    backends.forEach((o, j) => {
      const theirs = prefixOf(o);
      if (i !== j && theirs !== mine && theirs.startsWith(mine))
        ctx.addIssue({
          code: 'custom',
          path: ['backends', i, 'prefix'],
          message: `"${mine}" begins backend "${o.name}"'s prefix "${theirs}": a tool named "${theirs}…" would belong to both; make neither prefix begin the other`,
        });
      else if (i < j && theirs === mine && o.name !== b.name)
        ctx.addIssue({
          code: 'custom',
          path: ['backends', j, 'prefix'],
          message: `"${theirs}" is also backend "${b.name}"'s prefix: each backend's tools need a prefix of their own`,
        });
    });
  });
  const steps = gatewaySteps + backendSteps(backends);
  const needed = steps * timeoutMs;
  if (needed > budgetMs)
    ctx.addIssue({
      code: 'custom',
      path: ['budgetMs'],
      message: `(${budgetMs}) cannot fit the gateway's ${steps} steps (its own and its backends', in one session) at timeoutMs ${timeoutMs} each (${needed} ms): raise budgetMs (--budget-ms) or lower timeoutMs`,
    });
}
