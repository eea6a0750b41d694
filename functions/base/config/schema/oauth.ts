/**
 * The `auth.oauth` block of a target: OAuth 2.1 client credentials the canary uses to get its own
 * access token (the MCP authorization spec), and the warning windows for expiring credentials and
 * certificates. Secrets are referenced, never written inline.
 */
// The namespace import, not `{ z }`: esbuild then keeps only what is used.
import * as z from 'zod';
import { secretsManagerName, ssmParameterName } from './stored-ref.ts';
import { unionError } from '../words/words.ts';
import { AuthorizationCodeSettings } from './oauth-delegated.ts';

export const DEFAULT_CERT_WARNING_DAYS = 14;
export const DEFAULT_CREDENTIAL_WARNING_DAYS = 7;
export const DEFAULT_OAUTH_ALG = 'RS256';

/** The JWS algorithms the SDK's private_key_jwt signer accepts for a PEM key (HS* is a shared secret, not a key). */
export const OAuthAlg = z.enum(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512']);

/**
 * When the secret itself expires (an Entra ID client secret, a rotated key): the canary warns
 * `credentialWarningDays` before. An ISO 8601 date or date-time.
 */
const expiresAt = z.string().refine((s) => /^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s)), {
  error: (i) => `is not an ISO 8601 date: got ${JSON.stringify(i.input)}. Write it as "2027-03-31" or "2027-03-31T00:00:00Z"`,
});

/**
 * Where an OAuth secret (client secret, private key PEM) is read at run time: Secrets Manager or SSM
 * for the scheduled run, an environment variable or a file for the CLI.
 */
export const OAuthSecretRef = z.union(
  [
    z
      .object({
        secretsManager: secretsManagerName('mcp-canary/my-target'),
        jsonKey: z.string().optional(),
        expiresAt: expiresAt.optional(),
      })
      .strict(),
    z
      .object({
        ssmParameter: ssmParameterName('/mcp-canary/my-target/api-key'),
        expiresAt: expiresAt.optional(),
      })
      .strict(),
    z
      .object({ env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'is not an environment variable name'), expiresAt: expiresAt.optional() })
      .strict(),
    z
      .object({ file: z.string().min(1, 'is empty: give the path of the file that holds the secret'), expiresAt: expiresAt.optional() })
      .strict(),
  ],
  {
    error: unionError(
      'must be a reference, never the secret itself: { secretsManager: "<arn or name>" }, { ssmParameter: "<name>" }, { env: "VAR" } or { file: "path" }',
    ),
  },
);
export type OAuthSecretRef = z.infer<typeof OAuthSecretRef>;

/** A scope token (RFC 6749 §3.3): printable ASCII without space, `"` or `\`. */
const scope = z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'is not a scope token (no spaces: list each scope separately)');

const url = z.string().refine(
  (s) => {
    try {
      return ['http:', 'https:'].includes(new URL(s).protocol);
    } catch {
      return false;
    }
  },
  { error: (i) => `is not an http(s) URL: got ${JSON.stringify(i.input)}. Give the full URL, e.g. https://auth.example.com` },
);

export const OAuthSettings = z
  .object({
    /** The client_id the authorization server registered for the canary. */
    clientId: z
      .string()
      .min(1, 'is empty: give the client_id the authorization server registered for the canary')
      .meta({ description: 'The `client_id` the authorization server registered for the canary' }),
    /** client_secret_basic: the secret, by reference. */
    clientSecret: OAuthSecretRef.optional().meta({
      description:
        '`client_secret_basic`: the secret, by reference (never the secret itself). Any reference may carry `expiresAt` (ISO 8601): the canary warns `credentialWarningDays` before',
      defaultText: 'Required, or `privateKeyJwt`',
    }),
    /** private_key_jwt (RFC 7523): the PEM private key, by reference, and its algorithm. */
    privateKeyJwt: z
      .object({
        privateKey: OAuthSecretRef.meta({
          description: 'The private key (PKCS#8 PEM), by reference; a PEM stored with literal `\\n` is turned back into lines',
        }),
        alg: OAuthAlg.default(DEFAULT_OAUTH_ALG).meta({ description: 'Its JWS algorithm' }),
      })
      .strict()
      .optional()
      .meta({
        description: '`private_key_jwt` (RFC 7523): a signed assertion whose `aud` is the issuer, instead of a secret',
        defaultText: 'Required, or `clientSecret`',
      }),
    /** Scopes to request. @default - none: the authorization server's default for the client */
    scopes: z
      .array(scope)
      .optional()
      .meta({ description: 'The scopes to request, each a token (no spaces)', defaultText: "none: the server's default for the client" }),
    /** The RFC 8707 resource indicator. @default - the resource the server's metadata names, else the target URL */
    resource: url.optional().meta({
      description: "The RFC 8707 resource indicator; it becomes the token's audience",
      defaultText: "the `resource` in the server's metadata, else the target URL",
    }),
    /** The token endpoint: skips discovery. @default - discovered (RFC 9728, then RFC 8414 / OpenID) */
    tokenUrl: url.optional().meta({
      description: 'The token endpoint; when set, discovery is skipped',
      defaultText: 'discovered (RFC 9728, then RFC 8414 / OpenID)',
    }),
    /** The expected issuer: discovery must find exactly this authorization server. @default - whichever the server names */
    issuer: url
      .optional()
      .meta({ description: 'The expected issuer: discovery must find exactly this one', defaultText: 'whichever issuer the server names' }),
    /** Follow OAuth URLs to private or link-local addresses (an authorization server inside the VPC). @default - false */
    allowPrivateNetwork: z.boolean().default(false).meta({
      description:
        'Allow OAuth URLs on private or link-local addresses (an authorization server inside your network). Cloud metadata addresses are refused even then',
    }),
  })
  .strict()
  .superRefine((o, ctx) => {
    if ((o.clientSecret === undefined) === (o.privateKeyJwt === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['clientSecret'],
        message: 'or privateKeyJwt: give exactly one, e.g. clientSecret: { secretsManager: "canary/oauth" }',
      });
    }
  });
export type OAuthSettings = z.output<typeof OAuthSettings>;

/** The fields a target gains (spread into `TargetFields`). */
export const authFields = {
  /** `oauth`: client credentials; `authorizationCode`: a person's delegated grant (functions/base/config/schema/oauth-delegated.ts). */
  auth: z
    .object({
      oauth: OAuthSettings.optional().meta({
        description: 'OAuth client credentials: the canary gets and refreshes its own token, the `auth` probe first',
        defaultText: 'none',
      }),
      authorizationCode: AuthorizationCodeSettings.optional().meta({
        description: "A person's delegated grant from `mcp-canary login`, kept fresh by the home-region refresher",
        defaultText: 'none',
      }),
    })
    .strict()
    .superRefine((a, ctx) => {
      if ((a.oauth === undefined) === (a.authorizationCode === undefined)) {
        ctx.addIssue({
          code: 'custom',
          message:
            'must hold exactly one of oauth (client credentials) or authorizationCode (a delegated grant from `mcp-canary login`), e.g. { authorizationCode: { store: { secretsManager: "mcp-canary/rates/grant" } } }',
        });
      }
    })
    .optional()
    .meta({
      description:
        'How the canary gets its OAuth token: exactly one of `oauth` (client credentials) or `authorizationCode` (a delegated grant), and no static `Authorization` header beside it',
      defaultText: 'none',
    }),
  /** Warn when the endpoint's TLS certificate expires within this many days (0: never). */
  certWarningDays: z
    .number()
    .int()
    .min(0, 'must be 0 (off) or more')
    .max(365, 'must be at most 365')
    .default(DEFAULT_CERT_WARNING_DAYS)
    .meta({
      description:
        "Warn when the endpoint's TLS certificate expires within this many days (`0`: off); https targets only, the certificate read at most hourly",
    }),
  /** Warn when a credential the canary was given (JWT bearer, OAuth secret with expiresAt) expires within this many days (0: never). */
  credentialWarningDays: z
    .number()
    .int()
    .min(0, 'must be 0 (off) or more')
    .max(365, 'must be at most 365')
    .default(DEFAULT_CREDENTIAL_WARNING_DAYS)
    .meta({
      description:
        "Warn when a credential the canary was given expires within this many days (`0`: off): a static bearer JWT's `exp`, a reference's `expiresAt`, the client certificate, a delegated grant's refresh token",
    }),
};

/** OAuth sets the Authorization header itself: a static one beside it would be overwritten silently. */
export function checkAuth(
  t: {
    auth?: { oauth?: unknown; authorizationCode?: unknown } | undefined;
    headers: Record<string, string>;
    headerSecrets: Record<string, unknown>;
  },
  ctx: z.RefinementCtx,
): void {
  if (!t.auth) return;
  const clash = [...Object.keys(t.headers), ...Object.keys(t.headerSecrets)].find((h) => h.toLowerCase() === 'authorization');
  if (clash) {
    ctx.addIssue({
      code: 'custom',
      path: ['auth', t.auth.authorizationCode ? 'authorizationCode' : 'oauth'],
      message: `and the ${clash} header both set Authorization: drop the header, the canary sends its OAuth token there`,
    });
  }
}
