/**
 * Pure: a canary tool whose answer nothing checks. Only `tools/call` sees an expired upstream key, and
 * only if its answer is checked: `isError` catches the servers that set it, but a server that returns
 * the upstream's 401 as an ordinary result reads healthy unless `expectText`, `expectJson` or the tool's
 * outputSchema says what a good answer holds. The CLI prints this under the verdict and `cdk synth`
 * annotates the target with it; it is never a Verdict warning (a warning turns every run into a
 * ticket) and never changes an outcome.
 */
import type { AnswerCheck } from '../../common/verdict.ts';
import { stepLabel, type FlowStep } from './flow.ts';

export interface CanaryToolChecks {
  readonly name: string;
  readonly expectText?: string | undefined;
  readonly expectJson: Readonly<Record<string, unknown>>;
}

/** What the configuration alone checks the answer with (the outputSchema is the server's, when known). */
export function configuredChecks(tool: CanaryToolChecks, outputSchema: boolean): AnswerCheck[] {
  return [
    'isError',
    ...(outputSchema ? (['outputSchema'] as const) : []),
    ...(tool.expectText !== undefined ? (['expectText'] as const) : []),
    ...(Object.keys(tool.expectJson).length > 0 ? (['expectJson'] as const) : []),
  ];
}

/**
 * One line when only `isError` checks the answer, else null. `outputSchemaKnown` is false at synth
 * without a recorded catalog: the tool may still declare one, and the line says so.
 */
export function uncheckedAnswer(target: string, toolName: string, checks: readonly AnswerCheck[], outputSchemaKnown = true): string | null {
  if (checks.some((c) => c !== 'isError')) return null;
  const schema = outputSchemaKnown ? 'and the tool declares no outputSchema' : 'and no recorded catalog shows an outputSchema';
  return `${target}: the answer of ${toolName} is not checked (no expectText, no expectJson, ${schema}): only isError fails it, so a server that returns an upstream failure as an ordinary result — an expired key answered as text — reads healthy. Add tool.expectText or tool.expectJson (--expect-text, --expect-json) naming what a good answer holds`;
}

/** Whether a recorded catalog shows the tool's outputSchema: true, false, or null when it does not name the tool. */
export function catalogOutputSchema(catalog: unknown, toolName: string): boolean | null {
  if (!catalog || typeof catalog !== 'object') return null;
  const maps = 'byCredential' in catalog ? Object.values((catalog as { byCredential: Record<string, unknown> }).byCredential) : [catalog];
  const prints = maps.map((m) => (m as Record<string, unknown>)[toolName]).filter((p): p is string => typeof p === 'string');
  if (prints.length === 0) return null;
  // The fingerprint's `o:` part is `-` when the tool has no outputSchema (docs/catalog-and-posture.md).
  return prints.every((p) => !/(^|;)o:-(;|$)/.test(p));
}

/** The synth-time lines for a fleet's targets: one per target whose answer nothing checks, one per such flow step. */
export function uncheckedTargets(
  targets: readonly {
    readonly name: string;
    readonly tool?: CanaryToolChecks | undefined;
    readonly flow?: readonly FlowStep[] | undefined;
    readonly catalog?: unknown;
  }[],
): string[] {
  return targets.flatMap((t) => {
    if (t.flow) return uncheckedSteps(t.name, t.flow, t.catalog);
    if (!t.tool) return [];
    const schema = catalogOutputSchema(t.catalog, t.tool.name);
    const line = uncheckedAnswer(t.name, t.tool.name, configuredChecks(t.tool, schema === true), schema !== null);
    return line ? [line] : [];
  });
}

/**
 * A flow's tool steps that nothing checks: no expectation, no outputSchema known, and no value taken
 * from the answer (an extraction that matches nothing fails the step, so it is a check of its own).
 */
function uncheckedSteps(target: string, flow: readonly FlowStep[], catalog: unknown): string[] {
  return flow.flatMap((step, i) => {
    if (step.kind !== 'tools/call' || Object.keys(step.extract).length > 0) return [];
    const schema = catalogOutputSchema(catalog, step.name);
    const line = uncheckedAnswer(`${target} ${stepLabel(i, step)}`, step.name, configuredChecks(step, schema === true), schema !== null);
    return line
      ? [
          line.replace(
            'Add tool.expectText or tool.expectJson (--expect-text, --expect-json)',
            "Add the step's expectText, expectJson or extract",
          ),
        ]
      : [];
  });
}
