/**
 * A flow: a target's ordered steps — `tools/call`, `resources/list`, `resources/read`, `prompts/list`,
 * `prompts/get` — each with its own assertion, and values taken from one step's answer for a later
 * step's arguments. A single canary `tool` is a one-step flow (`flowOf`). The checks a flow needs
 * before it runs (ids, references, the budget) are here too, so the CLI and `cdk synth` refuse the same
 * mistakes with the same one-line errors. Every step's request has the target's `timeoutMs`.
 *
 * A reference is `${steps.<id>.<name>}`: a string that is exactly one reference takes the value as it
 * was extracted (any JSON type); a reference inside a longer string is replaced by the value's text
 * (strings, numbers and booleans only).
 */
import * as z from 'zod';

/** A JSON value, as `arguments` and `expectJson` carry them. */
const JsonValue: z.ZodType<unknown> = z.json();

/** A value a step takes from its answer: a dotted path into its JSON, or a regex over its text (group 1, or `group`). */
export const Extraction = z.union([
  z
    .object({
      path: z.string().min(1, 'is empty: give a dotted path, e.g. "items.0.id"').meta({
        description: "A dotted path into the step's JSON (a tool's `structuredContent`, else the result itself, e.g. `resources.0.uri`)",
      }),
    })
    .strict(),
  z
    .object({
      regex: z.string().superRefine((s, ctx) => {
        try {
          new RegExp(s);
        } catch (e) {
          ctx.addIssue({ code: 'custom', message: `is not a regular expression: ${(e as Error).message}` });
        }
      }),
      group: z.number().int().min(0).max(9).default(1),
    })
    .strict(),
]);
export type Extraction = z.output<typeof Extraction>;

const stepId = z
  .string()
  .regex(
    /^[A-Za-z][A-Za-z0-9_-]{0,31}$/,
    'must be 1–32 letters, digits, "_" or "-", starting with a letter (it names the step in references and verdicts)',
  );
const valueName = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,31}$/, 'must be 1–32 letters, digits or "_", starting with a letter');

/** The fields every step has: its id, what it must answer, what it extracts. */
const common = {
  id: stepId.optional().meta({
    description: 'Names the step in references (`${steps.<id>.<name>}`) and verdicts',
    defaultText: 'its position, e.g. `step 2`',
  }),
  expectText: z.string().optional().meta({
    description:
      "The step's text must contain this string: a tool's or resource's text content, a prompt's message texts, a list's URIs or names one a line",
    defaultText: 'none',
  }),
  expectJson: z.record(z.string(), JsonValue).default({}).meta({
    description: "Dotted paths into the step's JSON and the JSON value each must equal (as `tool.expectJson`)",
  }),
  extract: z.record(valueName, Extraction).default({}).meta({
    description:
      'Values for later steps, by name: `{ "path": "a.0.b" }` into its JSON, or `{ "regex": "id=(\\\\w+)" }` over its text. A path or regex that matches nothing fails the step (`assertion`)',
  }),
};

export const ToolStep = z
  .object({
    kind: z.literal('tools/call'),
    ...common,
    name: z.string().min(1, 'is empty: name the tool to call').meta({
      description: 'The tool; like the canary tool it must be annotated `readOnlyHint: true` in every listing of its name',
    }),
    arguments: z.record(z.string(), JsonValue).default({}).meta({ description: 'Its arguments; strings may hold references' }),
    allowUnsafe: z.boolean().default(false).meta({ description: 'Call it even though it is not annotated read-only' }),
    task: z.boolean().default(false).meta({
      description:
        'The tool may run as a task (SEP-2663, 2026-07-28): the canary declares the tasks extension, polls `tasks/get` within the budget and cancels at its deadline',
    }),
  })
  .strict();

export const ResourcesListStep = z.object({ kind: z.literal('resources/list'), ...common }).strict();
export const ResourcesReadStep = z
  .object({
    kind: z.literal('resources/read'),
    ...common,
    uri: z.string().min(1, 'is empty: give the resource URI, or a reference such as "${steps.list.uri}"').meta({
      description: 'The resource to read; may be a reference',
    }),
  })
  .strict();
export const PromptsListStep = z.object({ kind: z.literal('prompts/list'), ...common }).strict();
export const PromptsGetStep = z
  .object({
    kind: z.literal('prompts/get'),
    ...common,
    name: z.string().min(1, 'is empty: name the prompt').meta({ description: 'The prompt' }),
    arguments: z.record(z.string(), z.string()).default({}).meta({ description: 'Its arguments (strings); may hold references' }),
  })
  .strict();

export const FlowStep = z.discriminatedUnion('kind', [ToolStep, ResourcesListStep, ResourcesReadStep, PromptsListStep, PromptsGetStep]);
export type FlowStep = z.output<typeof FlowStep>;
export type FlowStepKind = FlowStep['kind'];

export const FlowSetting = z.array(FlowStep).min(1, 'is empty: give at least one step, or use `tool` for a single tool');

/** A step's name in verdicts: `step 2 "rate"`, or `step 2` without an id (1-based). */
export function stepLabel(index: number, step: { readonly id?: string | undefined }): string {
  return `step ${index + 1}${step.id ? ` "${step.id}"` : ''}`;
}

/** `${steps.<id>.<name>}`, anywhere in a string. */
export const REFERENCE = /\$\{([^}]*)\}/g;
const REFERENCE_PARTS = /^steps\.([A-Za-z][A-Za-z0-9_-]{0,31})\.([A-Za-z][A-Za-z0-9_]{0,31})$/;

/** Every `${…}` in a step's templated fields (arguments, uri), with where it is. */
export function referencesOf(step: FlowStep): { readonly field: string; readonly text: string }[] {
  const found: { field: string; text: string }[] = [];
  const walk = (v: unknown, field: string) => {
    if (typeof v === 'string') for (const m of v.matchAll(REFERENCE)) found.push({ field, text: m[1]! });
    else if (Array.isArray(v)) v.forEach((x, i) => walk(x, `${field}.${i}`));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, `${field}.${k}`);
  };
  if (step.kind === 'tools/call' || step.kind === 'prompts/get') walk(step.arguments, 'arguments');
  if (step.kind === 'resources/read') walk(step.uri, 'uri');
  return found;
}

/** A reference's step id and value name, or null when it is not `steps.<id>.<name>`. */
export function parseReference(text: string): { readonly id: string; readonly name: string } | null {
  const m = REFERENCE_PARTS.exec(text);
  return m ? { id: m[1]!, name: m[2]! } : null;
}

/**
 * The flow's own mistakes, as issues on `flow`: a duplicate id, a reference that is not
 * `${steps.<id>.<name>}`, one to a step that does not come earlier, or to a value that step does not
 * extract; and a flow whose steps' timeouts cannot fit the run's budget.
 */
export function checkFlow(flow: readonly FlowStep[], timeoutMs: number, budgetMs: number, ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  flow.forEach((step, i) => {
    if (step.id !== undefined) {
      const first = seen.get(step.id);
      if (first !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['flow', i, 'id'],
          message: `"${step.id}" is already the id of step ${first + 1}: each step's id must be unique`,
        });
      else seen.set(step.id, i);
    }
    for (const ref of referencesOf(step)) {
      const problem = referenceProblem(ref.text, flow, i);
      if (problem) ctx.addIssue({ code: 'custom', path: ['flow', i, ...ref.field.split('.')], message: problem });
    }
  });
  // Each step's request may take the whole request timeout; a budget that cannot hold them all would
  // cut the flow short on a merely slow day and call it a timeout.
  const needed = flow.length * timeoutMs;
  if (needed > budgetMs) {
    ctx.addIssue({
      code: 'custom',
      path: ['budgetMs'],
      message: `(${budgetMs}) cannot fit the flow's ${flow.length} steps at timeoutMs ${timeoutMs} each (${needed} ms): raise budgetMs (--budget-ms) or lower timeoutMs`,
    });
  }
}

function referenceProblem(text: string, flow: readonly FlowStep[], at: number): string | null {
  const ref = parseReference(text);
  if (!ref) return `has "\${${text}}", which is not a reference: write \${steps.<id>.<name>}, e.g. \${steps.list.uri}`;
  const source = flow.findIndex((s) => s.id === ref.id);
  if (source === -1) return `refers to \${steps.${ref.id}.${ref.name}}, but no step has the id "${ref.id}"`;
  if (source >= at)
    return `refers to \${steps.${ref.id}.${ref.name}}, but step "${ref.id}" runs ${source === at ? 'as this step' : 'later'}: a step can use only the values of the steps before it`;
  if (!Object.hasOwn(flow[source]!.extract, ref.name)) {
    const made = Object.keys(flow[source]!.extract);
    return `refers to \${steps.${ref.id}.${ref.name}}, but step "${ref.id}" extracts no value "${ref.name}" (${made.length ? `it extracts ${made.join(', ')}` : 'it extracts nothing'}): add it to that step's extract`;
  }
  return null;
}
