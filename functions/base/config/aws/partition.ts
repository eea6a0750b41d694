/**
 * One fleet, one partition: the home region's. Roles, topics, alarms and the run's reads of secrets
 * cannot cross from one partition (aws, aws-cn, aws-us-gov, aws-eusc) to another, so a probe region, a
 * subscription ARN or a secret ARN in another partition is a config error naming the field. SSM's name
 * length is checked here too, since it counts the ARN (partition and region) before the name.
 */
import type * as z from 'zod';
import { parseArn, ssmNameLengthProblem } from './arns.ts';
import { partitionOf } from './regions.ts';

type Ref = { secretsManager: string } | { ssmParameter: string } | { env: string } | { file: string };

interface FleetLike {
  readonly homeRegion: string;
  readonly probeRegions?: readonly string[] | undefined;
  readonly notify: Record<string, ReadonlyArray<Record<string, string>>>;
  readonly targets: ReadonlyArray<{
    readonly probeRegions?: readonly string[] | undefined;
    readonly headerSecrets: Record<string, Ref>;
    readonly querySecrets?: Record<string, Ref>;
    readonly auth?:
      | {
          readonly oauth?:
            undefined | { readonly clientSecret?: Ref | undefined; readonly privateKeyJwt?: { readonly privateKey: Ref } | undefined };
        }
      | undefined;
  }>;
}

/** `targets[0].headerSecrets.Authorization` → its reference, for every reference a target holds. */
function refsOf(t: FleetLike['targets'][number]): Array<[PropertyKey[], Ref]> {
  const oauth = t.auth?.oauth;
  return [
    ...Object.entries(t.headerSecrets).map(([h, r]): [PropertyKey[], Ref] => [['headerSecrets', h], r]),
    ...Object.entries(t.querySecrets ?? {}).map(([k, r]): [PropertyKey[], Ref] => [['querySecrets', k], r]),
    ...(oauth?.clientSecret ? [[['auth', 'oauth', 'clientSecret'], oauth.clientSecret] as [PropertyKey[], Ref]] : []),
    ...(oauth?.privateKeyJwt
      ? [[['auth', 'oauth', 'privateKeyJwt', 'privateKey'], oauth.privateKeyJwt.privateKey] as [PropertyKey[], Ref]]
      : []),
  ];
}

/** `regionsOf`: where a target is probed from, as the fleet schema decides it (schema/target-rule.ts). */
export function checkPartition(
  f: FleetLike,
  ctx: z.RefinementCtx,
  regionsOf: (t: FleetLike['targets'][number]) => readonly string[],
): void {
  const home = partitionOf(f.homeRegion);
  if (!home) return; // the region itself is reported
  const fix = `the fleet lives in one partition, its homeRegion's (${f.homeRegion}, ${home.id})`;
  const region = (r: string, path: PropertyKey[]) => {
    const p = partitionOf(r);
    if (p && p.id !== home.id)
      ctx.addIssue({
        code: 'custom',
        path,
        message: `is ${r}, in the ${p.id} partition: ${fix}, and roles, topics and alarms cannot cross partitions. Probe from ${home.id} regions, or deploy a second fleet with a ${p.id} homeRegion`,
      });
  };
  const arn = (s: string, path: PropertyKey[]) => {
    const a = parseArn(s);
    if (a && partitionOf(a.region) && a.partition !== home.id)
      ctx.addIssue({ code: 'custom', path, message: `is in the ${a.partition} partition: ${fix}. Use a resource in ${home.id}` });
  };
  f.probeRegions?.forEach((r, i) => region(r, ['probeRegions', i]));
  for (const [list, subs] of Object.entries(f.notify)) {
    subs.forEach((sub, i) => {
      for (const [key, value] of Object.entries(sub)) if (key.endsWith('Arn')) arn(value, ['notify', list, i, key]);
    });
  }
  f.targets.forEach((t, i) => {
    t.probeRegions?.forEach((r, j) => region(r, ['targets', i, 'probeRegions', j]));
    const regions = regionsOf(t);
    for (const [path, ref] of refsOf(t)) {
      if ('secretsManager' in ref) arn(ref.secretsManager, ['targets', i, ...path, 'secretsManager']);
      if (!('ssmParameter' in ref)) continue;
      arn(ref.ssmParameter, ['targets', i, ...path, 'ssmParameter']);
      // A name is read in every probe region: the longest region name sets the limit.
      const longest = [...regions].sort((a, b) => b.length - a.length)[0]!;
      const tooLong = ssmNameLengthProblem(ref.ssmParameter, home.id, longest);
      if (tooLong) ctx.addIssue({ code: 'custom', path: ['targets', i, ...path, 'ssmParameter'], message: tooLong });
    }
  });
}
