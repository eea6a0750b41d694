/**
 * What the run functions may read, as a rule that does not grow with the fleet: every secret a target
 * references is named under `mcp-canary/` (Secrets Manager) or `/mcp-canary/` (SSM Parameter Store).
 *
 * Why a name prefix. The first release listed every referenced secret in the run role's inline policy,
 * one ~80-character ARN each, and IAM allows 10,240 characters of inline policy per role: about 120
 * credentialed targets per region. The other two ways out were worse here:
 * - a tag condition (`secretsmanager:ResourceTag/...`, ABAC) lives on the secret, so synth cannot check
 *   it: a missing tag would surface as AccessDenied at run time, in one region, as a failed target;
 * - grouping exact ARNs into managed policies (6,144 characters each, 10 per role) moves the ceiling to
 *   ~700 secrets and breaks it again at 5,000 targets.
 * The prefix keeps least privilege at a boundary the user can see (the run reads `mcp-canary/*` and
 * nothing else in the account, every other secret stays out of reach), is checked here at synth for
 * every reference with the target and field named, and costs one resource per account and region.
 *
 * Where a reference is read (functions/io/secrets/reader.ts): a plain name in the probe region, an ARN in the
 * ARN's own region and account. So a grant is a (service, partition, region, account) scope: "the probe
 * region's own account" for names, the ARN's fields for ARNs (a home-region ARN read from every probe
 * region is one scope per region reading it, not one per target).
 */
import type { OAuthSecretRef } from '../../functions/base/config/schema/oauth.ts';
import type { FleetTarget } from '../../functions/base/config/schema/fleet.ts';
import type { ProxyCredentialsRef } from '../../functions/base/config/schema/proxy.ts';
import type { HeaderSecretRef } from '../../functions/base/config/schema/target.ts';
import type { CanaryError } from '../../functions/base/common/errors.ts';
import { tlsRefs } from '../../functions/base/config/schema/tls.ts';
import { fleetError } from './checks.ts';
import { delegatedAccessRef } from '../../functions/base/config/load/oauth-secrets.ts';

/** Secrets Manager secrets the run may read are named `mcp-canary/...`. */
export const SECRET_NAME_PREFIX = 'mcp-canary/';
/** SSM parameters the run may read are `/mcp-canary/...` (a parameter in a hierarchy starts with "/"). */
export const PARAMETER_NAME_PREFIX = '/mcp-canary/';
/**
 * Distinct (service, partition, region, account) scopes one probe region's run role may hold: each is a
 * statement resource of ~80 characters, and the role's inline policies share IAM's 10,240 characters
 * with the log and metric statements. 40 scopes stay under half of it.
 */
export const MAX_SECRET_SCOPES_PER_REGION = 40;

export type SecretService = 'secretsmanager' | 'ssm';

/**
 * One wildcard grant of the run role. Absent partition/region/account mean the probe-region stack's own
 * (a plain name); present ones come from an ARN.
 */
export interface SecretScope {
  readonly service: SecretService;
  readonly partition?: string;
  readonly region?: string;
  readonly account?: string;
}

/** A store reference of a target and the config path that holds it, for messages. */
export interface SecretRefAt {
  readonly field: string;
  readonly service: SecretService;
  readonly id: string;
}

/** Every Secrets Manager / SSM reference of a target: header secrets and OAuth material. */
export function secretRefsOf(t: FleetTarget): SecretRefAt[] {
  const out: SecretRefAt[] = [];
  const add = (field: string, ref: HeaderSecretRef | OAuthSecretRef | undefined) => {
    if (ref && 'secretsManager' in ref) out.push({ field: `${field}.secretsManager`, service: 'secretsmanager', id: ref.secretsManager });
    else if (ref && 'ssmParameter' in ref) out.push({ field: `${field}.ssmParameter`, service: 'ssm', id: ref.ssmParameter });
  };
  for (const [header, ref] of Object.entries(t.headerSecrets)) add(`headerSecrets.${header}`, ref);
  for (const [key, ref] of Object.entries(t.querySecrets)) add(`querySecrets.${key}`, ref);
  // TLS material (client certificate, key, passphrase, private CAs); a file reference is refused at synth (checks.ts).
  for (const [field, ref] of tlsRefs(t.tls)) if (!('file' in ref)) add(field, ref);
  add('auth.oauth.clientSecret', t.auth?.oauth?.clientSecret);
  add('auth.oauth.privateKeyJwt.privateKey', t.auth?.oauth?.privateKeyJwt?.privateKey);
  // The probe runs read the access token the refresher publishes in their own region, never the grant.
  add('auth.authorizationCode.store', delegatedAccessRef(t.auth?.authorizationCode));
  return out;
}

/** The fleet's proxy credentials as a store reference (Secrets Manager or SSM), for its grant. */
export function proxyCredentialsRef(ref: ProxyCredentialsRef | undefined): SecretRefAt | undefined {
  if (!ref) return undefined;
  return 'secretsManager' in ref
    ? { field: 'credentials.secretsManager', service: 'secretsmanager', id: ref.secretsManager }
    : { field: 'credentials.ssmParameter', service: 'ssm', id: ref.ssmParameter };
}

/**
 * The scope a reference needs, or a config error naming the target, the field and the fix when the
 * reference is outside the prefix or is not an ARN of its service.
 */
export function scopeOf(
  index: number,
  name: string,
  ref: SecretRefAt,
  fleetField?: (field: string, message: string) => CanaryError,
): SecretScope {
  const where = fleetField ?? ((field: string, message: string) => fleetError(index, name, field, message));
  const fail = (what: string) => where(ref.field, `(${JSON.stringify(ref.id)}) ${what}`);
  const arn = ref.id.startsWith('arn:') ? parseArn(ref) : undefined;
  if (ref.id.startsWith('arn:') && !arn) {
    throw fail(
      ref.service === 'secretsmanager'
        ? 'is not a Secrets Manager secret ARN: write arn:<partition>:secretsmanager:<region>:<account>:secret:mcp-canary/<name>, or the plain name mcp-canary/<name>'
        : 'is not an SSM parameter ARN: write arn:<partition>:ssm:<region>:<account>:parameter/mcp-canary/<name>, or the plain name /mcp-canary/<name>',
    );
  }
  const storedName = arn ? arn.name : ref.id;
  const prefix = ref.service === 'secretsmanager' ? SECRET_NAME_PREFIX : PARAMETER_NAME_PREFIX;
  // An SSM ARN drops the hierarchy's leading "/": parameter/mcp-canary/x is the parameter /mcp-canary/x.
  const comparable = arn && ref.service === 'ssm' ? `/${storedName}` : storedName;
  if (!comparable.startsWith(prefix)) {
    const suggestion = suggestName(ref.service, comparable);
    throw fail(
      `is outside ${prefix}, the only ${ref.service === 'secretsmanager' ? 'secrets' : 'parameters'} the run functions may read (the run role grants ${prefix}* so its policy stays the same size however many targets there are). Store it as ${JSON.stringify(suggestion)}${arn ? ' and reference that ARN' : ''}`,
    );
  }
  return arn ? { service: ref.service, partition: arn.partition, region: arn.region, account: arn.account } : { service: ref.service };
}

/** Unique scopes of the references of the targets probed from one region, in first-seen order. */
export function regionSecretScopes(
  region: string,
  targets: ReadonlyArray<{ readonly index: number; readonly name: string; readonly secretRefs: readonly SecretRefAt[] }>,
): SecretScope[] {
  const seen = new Map<string, SecretScope>();
  for (const t of targets) {
    for (const ref of t.secretRefs) {
      const scope = scopeOf(t.index, t.name, ref);
      const key = [scope.service, scope.partition, scope.region, scope.account].join(':');
      if (seen.has(key)) continue;
      if (seen.size === MAX_SECRET_SCOPES_PER_REGION) {
        throw fleetError(
          t.index,
          t.name,
          ref.field,
          `(${JSON.stringify(ref.id)}) brings the secret scopes read from ${region} to ${seen.size + 1}; the run role allows at most ${MAX_SECRET_SCOPES_PER_REGION}, to stay inside IAM's 10,240-character role policy. A scope is one combination of service, partition, region and account: Secrets Manager and SSM count apart, and plain names are one scope per service. Keep the secrets in fewer accounts, regions or services (a name without an ARN is read in the probe region)`,
        );
      }
      seen.set(key, scope);
    }
  }
  return [...seen.values()];
}

interface ParsedArn {
  readonly partition: string;
  readonly region: string;
  readonly account: string;
  /** The secret name (with or without its 6-character suffix) or the parameter path without its leading "/". */
  readonly name: string;
}

/** `arn:aws:secretsmanager:eu-west-1:111122223333:secret:mcp-canary/x` and `arn:aws:ssm:…:parameter/mcp-canary/x`. */
function parseArn(ref: SecretRefAt): ParsedArn | undefined {
  const m =
    ref.service === 'secretsmanager'
      ? /^arn:(aws[a-z-]*):secretsmanager:([a-z]{2}(?:-[a-z]+)+-\d):(\d{12}):secret:(.+)$/.exec(ref.id)
      : /^arn:(aws[a-z-]*):ssm:([a-z]{2}(?:-[a-z]+)+-\d):(\d{12}):parameter\/(.+)$/.exec(ref.id);
  if (!m) return undefined;
  return { partition: m[1]!, region: m[2]!, account: m[3]!, name: m[4]! };
}

/** `rates/prod` → `mcp-canary/rates/prod`; `/team/key` → `/mcp-canary/team/key`; `mcp-canary/key` (SSM) → `/mcp-canary/key`. */
function suggestName(service: SecretService, current: string): string {
  const bare = current.replace(/^\/+/, '').replace(/^mcp-canary\//, '');
  return service === 'secretsmanager' ? `${SECRET_NAME_PREFIX}${bare}` : `${PARAMETER_NAME_PREFIX}${bare}`;
}
