/**
 * The canary tool: one cheap, read-only tool whose answer only a working endpoint can give. A target's
 * `tool` and a gateway backend's `tool` (backends.ts) are the same setting.
 */
import * as z from 'zod';

/** A JSON value, as `--expect-json` and `arguments` carry them. */
const JsonValue: z.ZodType<unknown> = z.json();

export const CanaryTool = z
  .object({
    /** The tool to call: cheap and read-only (annotated `readOnlyHint: true`). */
    name: z.string().min(1, 'is empty: name the canary tool, e.g. "get_rate"').meta({
      description:
        'The tool to call. It must be annotated `readOnlyHint: true` in every listing of its name, or the run is `inconclusive` (`unsafe_tool`) and the tool is not called',
    }),
    arguments: z.record(z.string(), JsonValue).default({}).meta({ description: 'Its arguments, a JSON object' }),
    /** The text content must contain this string. */
    expectText: z.string().optional().meta({ description: "The tool's text content must contain this string", defaultText: 'none' }),
    /** Dotted paths into structuredContent and the JSON value each must equal, e.g. { "rate": 1.08 }. */
    expectJson: z.record(z.string(), JsonValue).default({}).meta({
      description:
        'Dotted paths into `structuredContent` and the JSON value each must equal, e.g. `{ "rate": 1.08 }`; integers beyond 2^53 compare exactly',
    }),
    /** Call the tool even though it is not annotated read-only. */
    allowUnsafe: z
      .boolean()
      .default(false)
      .meta({ description: 'Call the tool even though it is not annotated read-only (for an unannotated tool you know is)' }),
    /** The tool may answer with a task (SEP-2663): the canary then polls it to its end, within the budget. */
    task: z.boolean().default(false).meta({
      description:
        "The tool may run as a task (SEP-2663, 2026-07-28): the canary declares the tasks extension, polls `tasks/get` at the server's `pollInterval` within the budget, sends `tasks/cancel` at its deadline and judges the end state",
    }),
  })
  .strict();
