/** Placeholder until functions/history lands (replaced below). */
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { StatusPayload } from '../config/status-page.ts';
import type { TargetHistory } from './snapshot.ts';

export async function gatherHistories(
  payload: StatusPayload,
  deps: { cloudwatch: CloudWatchClient; now: number },
): Promise<TargetHistory[]> {
  void deps;
  return payload.targets.map((t) => ({ metric: t.metric, segments: [], incidents: [] }));
}
