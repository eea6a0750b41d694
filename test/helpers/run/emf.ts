/**
 * Reads CloudWatch embedded metric format lines the way CloudWatch Logs extracts them (the EMF
 * specification: `_aws.CloudWatchMetrics[]` names the namespace, the dimension sets and the metrics; each
 * value and dimension value is the line's top-level member of that name). No service here extracts EMF,
 * so the tests read the lines with the spec's rules and hold them against the alarms that read the result.
 */
import { OWN_FAULTS_METRIC, OwnFaultDimension } from '../../../functions/base/common/own-faults.ts';

export interface EmfDatum {
  readonly namespace: string;
  readonly metric: string;
  readonly unit: string | undefined;
  /** One dimension set, with its values. */
  readonly dimensions: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Every datum the lines carry (lines that are not EMF are skipped). */
export function emfData(lines: ReadonlyArray<Record<string, unknown>>): EmfDatum[] {
  const out: EmfDatum[] = [];
  for (const line of lines) {
    const aws = line._aws as
      | { CloudWatchMetrics?: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string; Unit?: string }> }> }
      | undefined;
    for (const directive of aws?.CloudWatchMetrics ?? []) {
      for (const set of directive.Dimensions) {
        const dimensions = Object.fromEntries(set.map((d) => [d, String(line[d])]));
        for (const m of directive.Metrics) {
          const values = ([] as unknown[]).concat(line[m.Name]);
          for (const value of values)
            out.push({ namespace: directive.Namespace, metric: m.Name, unit: m.Unit, dimensions, value: Number(value) });
        }
      }
    }
  }
  return out;
}

/** The `CanaryFaults` data: which fault, how many. */
export function faultMetrics(lines: ReadonlyArray<Record<string, unknown>>): Array<{ fault: string; count: number }> {
  return emfData(lines)
    .filter((d) => d.metric === OWN_FAULTS_METRIC)
    .map((d) => ({ fault: d.dimensions[OwnFaultDimension.fault]!, count: d.value }));
}
