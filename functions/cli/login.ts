/**
 * `mcp-canary login <url>`: a person runs the MCP authorization flow once (functions/engine/auth/login.ts);
 * the grant is stored where the target's config names it, and the refresh token is never printed.
 * With `--store-secret` the grant goes to Secrets Manager with the caller's AWS credentials (home
 * region) and the first access token is published to the probe regions, so the scheduled runs work
 * before the refresher's first run; with `--store-file` it is a 0600 file for `check --grant-file`.
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { login } from '../engine/auth/login.ts';
import { FileGrantStore } from '../engine/auth/grant-file.ts';
import { CanaryError, CanaryErrorCode, configError } from '../base/common/errors.ts';
import { inWords } from '../engine/auth/expiry.ts';
import { loadFleet } from '../base/config/load/load.ts';
import {
  publishedOf,
  type AuthorizationCodeSettings,
  type GrantStore,
  type GrantStoreRef,
  type StoredGrant,
} from '../base/config/schema/oauth-delegated.ts';
import { AuthorizationCodeSettings as Settings } from '../base/config/schema/oauth-delegated.ts';
import { targetRule } from '../base/config/schema/target-rule.ts';
import { parseOrThrow } from '../base/config/words/issues.ts';
import type { Reach } from '../base/common/run-context.ts';
import { envProxySecrets, hasEnvProxy, readStoredSecrets } from './stored-secrets.ts';
import { shownUrl } from '../base/common/shown-url.ts';

export const LOGIN_HELP = `Usage: mcp-canary login <url> (--store-file PATH | --store-secret mcp-canary/NAME) [options]
       mcp-canary login --config FILE --target NAME

Sign in once, as a person, to an MCP server that accepts only delegated OAuth (authorization code +
PKCE), and store the grant where the canary's unattended runs find it. The authorization URL is
printed (and opened in a browser where one can open); the answer comes back to 127.0.0.1.

Options:
  --store-file PATH            keep the grant in this file (mode 0600), for check --grant-file PATH
  --store-secret NAME          keep it in this Secrets Manager secret (your AWS credentials), for the scheduled runs
  --region R                   the home region, where --store-secret lives (default: the config's homeRegion, else AWS_REGION)
  --publish-regions a,b        publish the first access token there too (default: the config's probe regions)
  --client-id ID               a client the authorization server registered for the canary (default: registered for you)
  --client-metadata-url URL    the canary's Client ID Metadata Document, where the server supports CIMD
  --scope "a b"                scopes to ask for (default: the scope its 401 names, else its scopes_supported)
  --refresh-token-days N       the refresh token's lifetime if the server does not say, for the expiry warning
  --allow-private-network      follow OAuth URLs to private addresses
  --no-browser                 print the URL only
  --config FILE --target NAME  take all of the above from the target's auth.authorizationCode

Exit codes: 0 logged in and stored, 1 the authorization failed, 2 usage or config error.`;

export interface LoginIo {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  readonly learnSecrets?: (values: readonly string[]) => void;
}

interface Plan {
  readonly url: string;
  /** The proxy (HTTPS_PROXY, or the fleet's) and the target's private CAs the authorization server is reached through. */
  readonly reach: Reach | undefined;
  /** Secret values in that reach (proxy credentials), for the redactor. */
  readonly reachSecrets: readonly string[];
  readonly settings: AuthorizationCodeSettings;
  readonly homeRegion: string | undefined;
  readonly publishRegions: readonly string[];
  readonly browser: boolean;
}

export async function loginCommand(argv: readonly string[], io: LoginIo): Promise<number> {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    io.stdout(`${LOGIN_HELP}\n`);
    return 0;
  }
  let plan: Plan;
  let store: GrantStore;
  try {
    plan = await planOf(argv);
    store = await storeOf(plan.settings.store, plan.homeRegion);
  } catch (e) {
    if (e instanceof CanaryError) {
      io.stderr(`mcp-canary: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const secrets: string[] = [...plan.reachSecrets];
  io.learnSecrets?.(secrets);
  let grant: StoredGrant;
  try {
    grant = await login({
      serverUrl: plan.url,
      reach: plan.reach,
      settings: plan.settings,
      onSecret: (s) => {
        secrets.push(s);
        io.learnSecrets?.(secrets);
      },
      onAuthorizationUrl: (u) => {
        io.stderr(
          `Open this URL to sign in and consent${plan.browser && openBrowser(u.href) ? ' (a browser was opened)' : ''}:\n  ${u.href}\n`,
        );
      },
    });
    const existing = await store.read();
    const next: StoredGrant = { ...grant, generation: (existing?.grant.generation ?? -1) + 1 };
    if ((await store.swap(existing?.version ?? null, next)) === false)
      throw new CanaryError(CanaryErrorCode.grantStore, `${store.label} changed while logging in: run the login again`, {
        store: store.label,
        problem: 'changed',
      });
    grant = next;
  } catch (e) {
    io.stderr(`mcp-canary: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
  const published = await publish(plan, grant, io);
  const client = plan.settings.clientId
    ? 'pre-registered'
    : plan.settings.clientMetadataUrl && grant.client.client_id === plan.settings.clientMetadataUrl
      ? 'Client ID Metadata Document'
      : 'registered';
  io.stdout(
    [
      `Logged in to ${grant.issuer} for ${shownUrl(plan.url)} (client ${grant.client.client_id}, ${client}).`,
      `Grant stored in ${store.label}${published.length ? `; access token published in ${published.join(', ')}` : ''}.`,
      `Access token expires ${inWords(Date.parse(grant.accessExpiresAt) - Date.now())}; ${grant.refreshToken ? 'the refresh token is stored, never printed' : 'no refresh token was issued: the grant ends with this access token'}.`,
      '',
    ].join('\n'),
  );
  return 0;
}

async function planOf(argv: readonly string[]): Promise<Plan> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        'store-file': { type: 'string' },
        'store-secret': { type: 'string' },
        region: { type: 'string' },
        'publish-regions': { type: 'string' },
        'client-id': { type: 'string' },
        'client-metadata-url': { type: 'string' },
        scope: { type: 'string' },
        'refresh-token-days': { type: 'string' },
        'allow-private-network': { type: 'boolean' },
        'no-browser': { type: 'boolean' },
        config: { type: 'string' },
        target: { type: 'string' },
      },
    });
  } catch (e) {
    throw configError(`${(e as Error).message}. Run \`mcp-canary login --help\` for the flags.`, e);
  }
  const v = parsed.values;
  const browser = v['no-browser'] !== true;
  if (v.config !== undefined) {
    const fleet = await loadFleet(v.config);
    const t = fleet.targets.find((x) => x.name === v.target);
    if (!t)
      throw configError(`--target ${v.target ?? '(missing)'}: name one of ${fleet.targets.map((x) => x.name).join(', ')} in ${v.config}.`);
    const settings = t.auth?.authorizationCode;
    if (!settings)
      throw configError(
        `target "${t.name}" has no auth.authorizationCode: add { authorizationCode: { store: { secretsManager: "mcp-canary/${t.name}/grant" } } }.`,
      );
    // The way the target's runs go: the fleet's proxy (else HTTPS_PROXY) and the target's private CAs; its client
    // certificate, headers and query secrets are the endpoint's, not the authorization server's.
    const only = { ...t, headerSecrets: {}, querySecrets: {}, auth: undefined, tls: t.tls?.ca ? { ca: t.tls.ca } : undefined };
    const [found] = await readStoredSecrets([only], fleet);
    return {
      url: t.url,
      reach: found?.reach,
      reachSecrets: [...(found?.secretValues ?? []), ...envProxySecrets(process.env)],
      settings,
      homeRegion: fleet.homeRegion,
      publishRegions: targetRule(fleet, t).regions,
      browser,
    };
  }
  const [url, ...extra] = parsed.positionals;
  if (!url) throw configError('give the MCP server URL: mcp-canary login https://mcp.example.com/mcp --store-file grant.json');
  if (extra.length) throw configError(`unexpected argument "${extra[0]}": give one URL.`);
  if ((v['store-file'] === undefined) === (v['store-secret'] === undefined))
    throw configError('give exactly one of --store-file PATH (this machine) or --store-secret mcp-canary/NAME (the scheduled runs).');
  const store: GrantStoreRef = v['store-file'] !== undefined ? { file: v['store-file'] } : { secretsManager: v['store-secret']! };
  const days = v['refresh-token-days'] !== undefined ? Number(v['refresh-token-days']) : undefined;
  const settings = parseOrThrow(
    Settings,
    {
      store,
      ...(v['client-id'] !== undefined ? { clientId: v['client-id'] } : {}),
      ...(v['client-metadata-url'] !== undefined ? { clientMetadataUrl: v['client-metadata-url'] } : {}),
      ...(v.scope !== undefined ? { scopes: v.scope.split(/\s+/).filter(Boolean) } : {}),
      ...(days !== undefined ? { refreshTokenLifetimeDays: days } : {}),
      ...(v['allow-private-network'] ? { allowPrivateNetwork: true } : {}),
    },
    'login',
  );
  const publishRegions = (v['publish-regions'] ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  // Behind an egress proxy the authorization server is reached through HTTPS_PROXY / HTTP_PROXY (NO_PROXY honoured), as check does.
  const reach: Reach | undefined = hasEnvProxy(process.env) ? { proxy: { fromEnv: true } } : undefined;
  return {
    url,
    reach,
    reachSecrets: envProxySecrets(process.env),
    settings,
    homeRegion: v.region ?? process.env.AWS_REGION,
    publishRegions,
    browser,
  };
}

async function storeOf(ref: GrantStoreRef, homeRegion: string | undefined): Promise<GrantStore> {
  if ('file' in ref) return new FileGrantStore(ref.file);
  if (!homeRegion) throw configError('--store-secret needs the home region: add --region R (or set AWS_REGION).');
  // Loaded only here: a file login never pays for the AWS SDK's start.
  const [{ SecretsManagerClient }, { SecretsManagerGrantStore }] = await Promise.all([
    import('@aws-sdk/client-secrets-manager'),
    import('../io/secrets/grant-store.ts'),
  ]);
  return new SecretsManagerGrantStore(new SecretsManagerClient({ region: homeRegion }), ref.secretsManager, homeRegion);
}

/** The first access token, to the probe regions, so runs work before the refresher's first run. A failure here is a note, not a failed login. */
async function publish(plan: Plan, grant: StoredGrant, io: LoginIo): Promise<string[]> {
  const ref = plan.settings.store;
  if (!('secretsManager' in ref) || plan.publishRegions.length === 0) return [];
  const [{ SecretsManagerClient }, { publishAccess }] = await Promise.all([
    import('@aws-sdk/client-secrets-manager'),
    import('../io/secrets/grant-store.ts'),
  ]);
  const done: string[] = [];
  for (const region of plan.publishRegions) {
    try {
      await publishAccess(new SecretsManagerClient({ region }), ref.secretsManager, publishedOf(grant));
      done.push(region);
    } catch (e) {
      io.stderr(`mcp-canary: note: ${(e as Error).message} (the refresher publishes it on its next run)\n`);
    }
  }
  return done;
}

/** Opens the URL in the desktop's browser where there is one; false when it cannot (a server, CI). */
function openBrowser(url: string): boolean {
  const cmd =
    process.platform === 'darwin' ? ['open', url] : process.platform === 'win32' ? ['cmd', '/c', 'start', '', url] : ['xdg-open', url];
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return false;
  try {
    const child = spawn(cmd[0]!, cmd.slice(1), { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}
