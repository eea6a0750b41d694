/**
 * `check --config` reads a target's stored credentials — `headerSecrets`, an OAuth secret in Secrets
 * Manager or SSM — the way the scheduled run does: the same SecretReader (functions/io/secrets/reader.ts),
 * with the caller's AWS credentials from the SDK's default chain (env, profile, SSO, …). A plain name is
 * read in the target's first probe region, where its scheduled run reads it (the laptop's default
 * region need not be one of them); an ARN in its own region. Without credentials it names every target
 * and reference it could not read, and what to set: never a silent skip that then reads as a 401.
 */
import type { Fleet } from '../base/config/schema/fleet.ts';
import type { ProxyRuntime } from '../base/config/schema/proxy.ts';
import type { Target } from '../base/config/schema/target.ts';
import { probeRegionsOf } from '../base/config/schema/target-rule.ts';
import { configError } from '../base/common/errors.ts';
import { oneLine } from '../base/common/redact.ts';
import type { ResolvedHeaders } from '../io/secrets/reader.ts';
import { readReach } from '../io/secrets/reach.ts';
import { tlsRefs } from '../base/config/schema/tls.ts';

/** The references a target holds in Secrets Manager or SSM, as `field: kind "id"`. */
export function storedReferences(target: Target): string[] {
  const oauth = target.auth?.oauth;
  const refs: Array<[string, object | undefined]> = [
    ...Object.entries(target.headerSecrets).map(([header, ref]): [string, object] => [`headerSecrets.${header}`, ref]),
    ...Object.entries(target.querySecrets).map(([key, ref]): [string, object] => [`querySecrets.${key}`, ref]),
    ['auth.oauth.clientSecret', oauth?.clientSecret],
    ['auth.oauth.privateKeyJwt.privateKey', oauth?.privateKeyJwt?.privateKey],
    ...tlsRefs(target.tls),
    // A delegated grant in Secrets Manager: check reads the access token the refresher published.
    ['auth.authorizationCode.store', target.auth?.authorizationCode?.store],
  ];
  return refs.flatMap(([field, ref]) => (ref && ('secretsManager' in ref || 'ssmParameter' in ref) ? [`${field}: ${refName(ref)}`] : []));
}

function refName(ref: object): string {
  return 'secretsManager' in ref
    ? `Secrets Manager secret ${JSON.stringify(ref.secretsManager)}`
    : `SSM parameter ${JSON.stringify((ref as { ssmParameter: string }).ssmParameter)}`;
}

/**
 * The proxy `check --config` sends through. The fleet's `proxy` when it has one: it is what the scheduled
 * run uses, and a check that went another way would prove nothing about the Lambda; its credentials are
 * read like the run's, with the caller's AWS identity. Else HTTPS_PROXY / HTTP_PROXY / NO_PROXY (either
 * case), as curl reads them. A fleet proxy the laptop cannot reach is named as the proxy in the verdict.
 */
export function checkProxy(
  fleet: Pick<Fleet, 'proxy'> | undefined,
  env: NodeJS.ProcessEnv,
): ProxyRuntime | { readonly fromEnv: true } | undefined {
  const p = fleet?.proxy;
  if (p) return { url: p.url, noProxy: p.noProxy, ...(p.credentials ? { credentials: p.credentials } : {}) };
  return hasEnvProxy(env) ? { fromEnv: true } : undefined;
}

/**
 * Each target's headers and OAuth secrets with its stored references read; `undefined` for a target
 * that has none (its flags, env vars and files are read by the caller as before). Throws a config
 * error naming the target and the fix when a reference cannot be read.
 */
export async function readStoredSecrets(
  targets: readonly Target[],
  fleet: Pick<Fleet, 'homeRegion' | 'probeRegions' | 'targets' | 'proxy'> | undefined,
): Promise<Array<ResolvedHeaders | undefined>> {
  const proxy = checkProxy(fleet, process.env);
  const proxyRefs = proxy && 'url' in proxy && proxy.credentials ? [`proxy.credentials: ${refName(proxy.credentials)}`] : [];
  const wanted = targets.map((t) => [...storedReferences(t), ...proxyRefs]);
  if (wanted.every((refs) => refs.length === 0)) return Promise.all(targets.map((t) => localReach(t, proxy)));
  // Loaded only here: a check without stored references never pays for the AWS SDK's start.
  const [{ SecretsManagerClient }, { SSMClient }, { SecretReader }, { perRegion }] = await Promise.all([
    import('@aws-sdk/client-secrets-manager'),
    import('@aws-sdk/client-ssm'),
    import('../io/secrets/reader.ts'),
    import('../base/common/per-region.ts'),
  ]);
  const secretsManager = perRegion((region) => new SecretsManagerClient({ region }));
  const ssm = perRegion((region) => new SSMClient({ region }));
  // The target's first probe region, where the deployed run reads its secrets; us-east-1 without a fleet.
  const regionOf = (t: Target) => {
    if (!fleet) return 'us-east-1';
    const own = fleet.targets.find((f) => f.name === t.name);
    return probeRegionsOf(fleet, own).regions[0]!;
  };
  await needCredentials(() => secretsManager(regionOf(targets[0]!)).config.credentials(), targets, wanted);
  return Promise.all(
    targets.map(async (t, i) => {
      if (wanted[i]!.length === 0) return localReach(t, proxy);
      const reader = new SecretReader({ secretsManager, ssm }, { defaultRegion: regionOf(t), reader: 'caller', proxy });
      try {
        return await reader.resolve(t);
      } catch (e) {
        throw configError(`target "${t.name}": ${(e as Error).message}`, e);
      }
    }),
  );
}

async function needCredentials(load: () => Promise<unknown>, targets: readonly Target[], wanted: readonly string[][]): Promise<void> {
  try {
    await load();
  } catch (e) {
    const what = targets.flatMap((t, i) => wanted[i]!.map((ref) => `target "${t.name}" ${ref}`));
    throw configError(
      `--config: ${what.join('; ')} cannot be read: no AWS credentials were found (${oneLine((e as Error).message.split('\n')[0]!, 200)}). ` +
        'check --config reads stored credentials with your AWS identity, as the scheduled run does with its role: set AWS_PROFILE ' +
        '(or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), or run `aws sso login`; or check the URL with the value in --header.',
      e,
    );
  }
}

/** A target without stored references (and a proxy without stored credentials): its `file:` TLS material and its proxy, or undefined when it has neither. */
async function localReach(t: Target, proxy: ProxyRuntime | { readonly fromEnv: true } | undefined): Promise<ResolvedHeaders | undefined> {
  if (!t.tls && !proxy) return undefined;
  // Cannot happen (an invariant, so a plain Error): a target with a stored reference is read by the SecretReader above.
  const noStore = () => Promise.reject(new Error('unreachable: stored references are read by the SecretReader'));
  try {
    const { reach, secretValues } = await readReach(t.tls, proxy, noStore, { files: true, now: Date.now() });
    return { headers: t.headers, url: t.url, secretValues, reach };
  } catch (e) {
    throw configError(`target "${t.name}": ${(e as Error).message}`, e);
  }
}

/** Whether HTTPS_PROXY or HTTP_PROXY (either case) is set; a value that is not an http(s) URL is a config error naming the variable. */
export function hasEnvProxy(env: NodeJS.ProcessEnv): boolean {
  const names = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'] as const;
  for (const name of names) {
    const raw = env[name];
    if (!raw) continue;
    let ok = false;
    try {
      ok = /^https?:$/.test(new URL(raw).protocol);
    } catch {
      // refused below
    }
    // Never echoed: a proxy URL may carry a password.
    if (!ok)
      throw configError(
        `${name} is not an http(s) URL: set it as http://proxy.example.com:3128 (credentials as http://user:password@…), or unset it`,
      );
  }
  return names.some((n) => Boolean(env[n]));
}

/** The userinfo in the environment's proxy URLs (`http://user:password@proxy:3128`): what the Redactor must learn. */
export function envProxySecrets(env: NodeJS.ProcessEnv): string[] {
  const secrets: string[] = [];
  for (const raw of [env.https_proxy, env.HTTPS_PROXY, env.http_proxy, env.HTTP_PROXY]) {
    if (!raw) continue;
    try {
      const u = new URL(raw);
      for (const part of [u.username, u.password]) if (part) secrets.push(part, decodeURIComponent(part));
      if (u.username && u.password)
        secrets.push(Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64'));
    } catch {
      // An unparsable proxy URL is undici's to refuse; nothing of it is shown.
    }
  }
  return secrets;
}
