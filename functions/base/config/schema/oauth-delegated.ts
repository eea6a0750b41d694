/**
 * `auth.authorizationCode`: user-delegated OAuth. A person runs `mcp-canary login <url>` once
 * (authorization code + PKCE); the canary then keeps the grant alive unattended with its refresh token.
 * This module holds the settings, the shape of what is stored (the grant and the published access token)
 * and the store interface the refresher and the login share. No I/O here.
 */
import * as z from 'zod';
import { secretRefProblem } from '../aws/arns.ts';
import { refineBy, unionError } from '../words/words.ts';
import { CanaryError, CanaryErrorCode } from '../../common/errors.ts';

/**
 * Where the grant lives: a Secrets Manager secret (named `mcp-canary/…`, in the home region; the
 * scheduled refresher is its only reader), or a file for the CLI (mode 0600).
 */
export const GrantStoreRef = z.union(
  [
    z
      .object({
        secretsManager: z
          .string()
          .min(1, 'is empty: give the secret\'s name, e.g. "mcp-canary/rates/grant"')
          .superRefine(refineBy(secretRefProblem))
          .refine((s) => !s.startsWith('arn:'), {
            error: 'is an ARN: give the plain name (e.g. "mcp-canary/rates/grant"); the grant lives in the home region',
          })
          .refine((s) => s.startsWith('arn:') || s.startsWith('mcp-canary/'), {
            error: (i) =>
              `is outside mcp-canary/, the only secrets the canary's functions may touch: name it "mcp-canary/${String(i.input).replace(/^\/+/, '')}"`,
          }),
      })
      .strict(),
    z
      .object({ file: z.string().min(1, 'is empty: give the path of the file that keeps the grant, e.g. ".mcp-canary/rates.grant.json"') })
      .strict(),
  ],
  { error: unionError('must be { secretsManager: "mcp-canary/<name>" } (scheduled runs) or { file: "path" } (the CLI)') },
);
export type GrantStoreRef = z.infer<typeof GrantStoreRef>;

const scope = z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'is not a scope token (no spaces: list each scope separately)');

const httpsUrl = z.string().refine(
  (s) => {
    try {
      const u = new URL(s);
      return u.protocol === 'https:' && u.pathname !== '/';
    } catch {
      return false;
    }
  },
  {
    error:
      'is not an https URL with a path: a Client ID Metadata Document is served over https at a path, e.g. https://canary.example.com/oauth/client.json',
  },
);

export const AuthorizationCodeSettings = z
  .object({
    /** A client the authorization server registered for the canary. @default - none: CIMD or dynamic registration */
    clientId: z.string().min(1, 'is empty: give the client_id, or leave it out to register the canary').optional().meta({
      description:
        'A client the authorization server registered for the canary (redirect URI `http://127.0.0.1/callback`, any port: RFC 8252); not with `clientMetadataUrl`',
      defaultText: 'none: CIMD, else dynamic registration',
    }),
    /** The URL of the canary's Client ID Metadata Document (it becomes the client_id where the server supports CIMD). */
    clientMetadataUrl: httpsUrl.optional().meta({
      description:
        "The canary's Client ID Metadata Document (https, with a path): the `client_id` where the server sets `client_id_metadata_document_supported`",
      defaultText: 'none',
    }),
    /** Scopes to ask for at login. @default - the server's (its challenge, else its metadata's scopes_supported) */
    scopes: z.array(scope).optional().meta({
      description: 'Scopes to ask for at login, each a token',
      defaultText: "the server's (its challenge, else its metadata's `scopes_supported`), plus `offline_access` where offered",
    }),
    /** Where the grant is kept (refresh token, client registration). */
    store: GrantStoreRef.meta({
      description:
        'Where the grant lives: `{ secretsManager: "mcp-canary/<name>" }` (a plain name, in the home region: the scheduled runs) or `{ file: "path" }` (the CLI, mode 0600; `cdk synth` refuses it)',
    }),
    /**
     * How long a refresh token lives when the authorization server does not say (`refresh_expires_in`):
     * the canary warns `credentialWarningDays` before. @default - unknown: no warning
     */
    refreshTokenLifetimeDays: z.number().int().min(1, 'must be at least 1 day').max(3650, 'must be at most 3650 days').optional().meta({
      description:
        "The refresh token's lifetime when the server does not say (`refresh_expires_in`), counted from the login: the canary warns `credentialWarningDays` before",
      defaultText: 'unknown: no warning',
    }),
    /** Follow OAuth URLs to private addresses (an authorization server inside your network). @default false */
    allowPrivateNetwork: z
      .boolean()
      .default(false)
      .meta({ description: 'Follow OAuth URLs to private addresses (an authorization server inside your network)' }),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.clientId !== undefined && o.clientMetadataUrl !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['clientId'],
        message: 'and clientMetadataUrl both name the client: keep clientId for a pre-registered client, or clientMetadataUrl for CIMD',
      });
    }
  });
export type AuthorizationCodeSettings = z.output<typeof AuthorizationCodeSettings>;

/** The client the grant was issued to: what the SDK calls the client information. */
export const StoredClient = z
  .object({ client_id: z.string().min(1), client_secret: z.string().optional(), token_endpoint_auth_method: z.string().optional() })
  .passthrough();

/**
 * The grant, as stored (JSON). Only the login and the refresher ever read it: it holds the refresh token.
 * `generation` counts refreshes, so a published access token can say which grant it came from.
 */
export const StoredGrant = z.object({
  v: z.literal(1),
  serverUrl: z.string(),
  issuer: z.string(),
  /** The authorization server metadata at login (its token endpoint, auth methods): refresh needs no discovery. */
  metadata: z.record(z.string(), z.unknown()),
  resource: z.string().optional(),
  scope: z.string().optional(),
  client: StoredClient,
  refreshToken: z.string().optional(),
  /** ISO 8601: when the refresh token stops working, when the server or the config says. */
  refreshExpiresAt: z.string().optional(),
  accessToken: z.string(),
  accessExpiresAt: z.string(),
  /** ISO 8601: when the access token was issued (the refresher renews it at half its lifetime). */
  accessIssuedAt: z.string(),
  generation: z.number().int().min(0),
  /** `refused`: the server answered invalid_grant (revoked, expired, consent withdrawn); only a new login helps. */
  status: z.enum(['ok', 'refused']),
  /** Why the last refresh failed and since when (a refused grant, or a token endpoint that did not answer). */
  problem: z.object({ kind: z.enum(['refused', 'unavailable']), detail: z.string(), since: z.string() }).optional(),
  /** A refresher holds the grant until then (ISO 8601): nobody else may use the refresh token meanwhile. */
  lease: z.object({ holder: z.string(), until: z.string() }).optional(),
});
export type StoredGrant = z.infer<typeof StoredGrant>;

/** What the probes read: the access token and what they need to judge it, never the refresh token. */
export const PublishedAccess = z.object({
  v: z.literal(1),
  accessToken: z.string(),
  accessExpiresAt: z.string(),
  generation: z.number().int().min(0),
  status: z.enum(['ok', 'refused']),
  problem: StoredGrant.shape.problem,
  refreshExpiresAt: z.string().optional(),
  issuer: z.string(),
  /**
   * The server the grant was logged in to, and the resource its tokens are for: a probe sends the token to
   * that server only (engine/auth/binding.ts). Absent on a token published before grants were bound; the
   * refresher publishes it bound on its next run.
   */
  serverUrl: z.string().optional(),
  resource: z.string().optional(),
});
export type PublishedAccess = z.infer<typeof PublishedAccess>;

export function publishedOf(g: StoredGrant): PublishedAccess {
  return {
    v: 1,
    accessToken: g.accessToken,
    accessExpiresAt: g.accessExpiresAt,
    generation: g.generation,
    status: g.status,
    ...(g.problem ? { problem: g.problem } : {}),
    ...(g.refreshExpiresAt ? { refreshExpiresAt: g.refreshExpiresAt } : {}),
    issuer: g.issuer,
    serverUrl: g.serverUrl,
    ...(g.resource ? { resource: g.resource } : {}),
  };
}

/** The secret the access token is published in, in every probe region: the grant's name + `/access`. */
export function accessSecretName(grantSecret: string): string {
  return `${grantSecret}/access`;
}

/** A stored grant and the version it was read at (for the compare-and-swap). */
export interface GrantVersion {
  readonly grant: StoredGrant;
  readonly version: string;
}

/**
 * A place that keeps one grant, with a compare-and-swap: `swap` writes only if the stored version is
 * still `expected`, else answers `false` and writes nothing. Secrets Manager does it with a
 * ClientRequestToken derived from the version read; a file with a lock file.
 */
export interface GrantStore {
  /** What the store is, for messages: `Secrets Manager secret "mcp-canary/x" in eu-west-1`. */
  readonly label: string;
  read(): Promise<GrantVersion | null>;
  swap(expected: string | null, grant: StoredGrant): Promise<string | false>;
}

/** Parses a stored value; throws `CanaryError` GRANT_STORE (`not_a_grant`) naming the store, never quoting the value. */
export function parseGrant(raw: string, label: string): StoredGrant {
  const notAGrant = (why: string) =>
    new CanaryError(CanaryErrorCode.grantStore, `${label} does not hold a grant ${why}. Run \`mcp-canary login <url>\` to store one.`, {
      store: label,
      problem: 'not_a_grant',
    });
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw notAGrant('(not JSON)');
  }
  const r = StoredGrant.safeParse(json);
  if (!r.success) throw notAGrant('mcp-canary wrote');
  return r.data;
}

/** The refresher's metric: 1 while a target's delegated grant is refused (the canary owner's alarm), else 0. */
export const CREDENTIAL_REFUSED_METRIC = 'CanaryCredentialRefused';
/** 1 when the refresher could not renew a grant this run (token endpoint down, a store it could not read or write). */
export const REFRESH_FAILED_METRIC = 'CredentialRefreshFailed';

/** The refresher's schedule input: one entry per delegated target with a Secrets Manager store. */
export const RefreshEvent = z.object({
  grants: z.array(
    z.object({
      target: z.string().min(1),
      url: z.string().min(1),
      /** The grant secret's name, in the home region. */
      secret: z.string().min(1),
      /** Where the access token is published: the target's probe regions. */
      regions: z.array(z.string().min(1)).min(1),
      refreshTokenLifetimeDays: z.number().int().positive().optional(),
      allowPrivateNetwork: z.boolean().default(false),
      /**
       * The target's `tls.ca` (a private CA bundle, by reference): its authorization server may have a
       * certificate from the same CA, and the refresher trusts it for the token request as the runs do.
       * An ARN is read in its own region; a plain name where the target's runs read it (caRegion).
       */
      ca: z
        .union([
          z.object({ secretsManager: z.string().min(1), jsonKey: z.string().optional() }).strict(),
          z.object({ ssmParameter: z.string().min(1) }).strict(),
        ])
        .optional(),
    }),
  ),
});
export type RefreshEvent = z.infer<typeof RefreshEvent>;

/**
 * Where the refresher reads a grant's `ca` given by plain name: where the target's runs read it, a probe
 * region (the home region when it is one, else the first), so the bundle the runs trust is the one the
 * refresher trusts, and nobody has to copy it to the home region. The construct grants that region.
 */
export function caRegion(grant: { readonly regions: readonly string[] }, homeRegion: string): string {
  return grant.regions.includes(homeRegion) ? homeRegion : grant.regions[0]!;
}
