/**
 * The fleet's egress proxy, for probe functions that reach the internet only through one: its URL,
 * its credentials by reference (never in the URL, which CloudFormation would keep in clear text), the
 * hosts that go direct, and the VPC the functions must run in to reach it, per probe region (a VPC is
 * regional). `mcp-canary check --config` uses it too (what the Lambda will do), its credentials read with
 * the caller's AWS identity; without a `proxy` here the CLI honours HTTPS_PROXY / HTTP_PROXY / NO_PROXY, as curl does.
 */
// The namespace import, not `{ z }`: esbuild then keeps only what is used.
import * as z from 'zod';
import { secretsManagerName, ssmParameterName } from './stored-ref.ts';
import { regionProblem } from '../aws/regions.ts';
import { refineBy, unionError } from '../words/words.ts';

const proxyUrl = z.string().superRefine((s, ctx) => {
  let u: URL | null = null;
  try {
    u = new URL(s);
  } catch {
    // fall through
  }
  if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:')) {
    ctx.addIssue({ code: 'custom', message: 'is not an http(s) URL: give the proxy as http://proxy.internal:3128' });
    return;
  }
  if (u.username || u.password) {
    ctx.addIssue({
      code: 'custom',
      message:
        'carries credentials before its host (…@), which would be written into the template in clear text: put them in a secret and reference it in proxy.credentials',
    });
  }
  if (u.pathname !== '/' || u.search)
    ctx.addIssue({ code: 'custom', message: 'has a path or query: a proxy is only scheme, host and port' });
});

/**
 * Where the proxy's `user:password` is read, like every other credential: a Secrets Manager secret under
 * mcp-canary/ (a JSON key of it, optionally), or an SSM SecureString parameter under /mcp-canary/.
 */
export const ProxyCredentialsRef = z.union(
  [
    z
      .object({
        secretsManager: secretsManagerName('mcp-canary/proxy', '"user:password"'),
        /** When the secret is a JSON object, the key whose value is `user:password`. */
        jsonKey: z.string().optional(),
      })
      .strict(),
    z
      .object({
        ssmParameter: ssmParameterName('/mcp-canary/proxy', '"user:password"'),
      })
      .strict(),
  ],
  {
    error: unionError(
      'must be a reference, never the credentials themselves: { secretsManager: "mcp-canary/<name>" } or { ssmParameter: "/mcp-canary/<name>" }, holding "user:password"',
    ),
  },
);
export type ProxyCredentialsRef = z.output<typeof ProxyCredentialsRef>;

export const VpcPlacement = z
  .object({
    vpcId: z
      .string()
      .regex(/^vpc-[0-9a-f]{8,17}$/, 'is not a VPC id: it looks like vpc-0abc12345def67890')
      .meta({ description: 'The VPC (`vpc-…`)' }),
    subnetIds: z
      .array(z.string().regex(/^subnet-[0-9a-f]{8,17}$/, 'is not a subnet id: it looks like subnet-0abc12345def67890'))
      .min(1, 'needs at least one subnet: private subnets that reach the proxy (two, in two zones, survive a zone outage)')
      .meta({ description: 'Private subnets that reach the proxy (two, in two zones, survive a zone outage)' }),
    securityGroupIds: z
      .array(z.string().regex(/^sg-[0-9a-f]{8,17}$/, 'is not a security group id: it looks like sg-0abc12345def67890'))
      .min(1, 'needs at least one security group that allows egress to the proxy')
      .meta({ description: 'Security groups that allow egress to the proxy' }),
  })
  .strict();
export type VpcPlacement = z.output<typeof VpcPlacement>;

/** What the run function needs at run time (the CDK stack passes it in its environment). */
export const ProxyRuntime = z
  .object({
    url: proxyUrl.meta({
      description:
        'The proxy, `http://host:port`: scheme, host and port only, and no credentials (`cdk synth` refuses them: they would be in the template)',
    }),
    credentials: ProxyCredentialsRef.optional().meta({
      description: 'Its `user:password`, by reference, read and granted like every other reference; never printed',
      defaultText: 'none',
    }),
    /** Hosts (and `.domain` suffixes, `host:port`, `*`, CIDR ranges such as `10.0.0.0/8`, IPv6 literals) that are reached directly, as NO_PROXY lists them. */
    noProxy: z.array(z.string().min(1, 'is empty: give a host, a .domain suffix, host:port or *')).default([]).meta({
      description:
        'Hosts reached directly, as NO_PROXY lists them: names, `.domain` suffixes, `host:port`, `*`, CIDR ranges (`10.0.0.0/8`, `fd00::/8`) and IPv6 literals. A range matches an IP address in the URL; a name is not resolved to decide',
    }),
  })
  .strict();
export type ProxyRuntime = z.output<typeof ProxyRuntime>;

export const ProxySetting = ProxyRuntime.extend({
  /** Per probe region, the VPC the run functions are placed in to reach the proxy. */
  vpcs: z
    .record(z.string().superRefine(refineBy(regionProblem)), VpcPlacement)
    .optional()
    .meta({
      description:
        'Per probe region (every one, once any has one), the VPC the run functions are placed in to reach the proxy, `ec2:CreateNetworkInterface` limited to its subnets and groups. The VPC must reach CloudWatch, Secrets Manager, SSM and DynamoDB through VPC endpoints or a NAT: only endpoint traffic goes through the proxy',
      defaultText: 'none: outside any VPC',
      keyName: 'probe region',
    }),
}).strict();
export type ProxySetting = z.output<typeof ProxySetting>;

/** Every probe region needs a VPC once any has one, and no VPC names a region nothing is probed from. */
export function checkProxyRegions(proxy: ProxySetting | undefined, probeRegions: ReadonlySet<string>, ctx: z.RefinementCtx): void {
  if (!proxy?.vpcs) return;
  const given = Object.keys(proxy.vpcs);
  for (const r of probeRegions) {
    if (!given.includes(r))
      ctx.addIssue({
        code: 'custom',
        path: ['proxy', 'vpcs'],
        message: `has no VPC for probe region ${r}: add "${r}": { vpcId, subnetIds, securityGroupIds } (its functions could not reach the proxy)`,
      });
  }
  for (const r of given) {
    if (!probeRegions.has(r))
      ctx.addIssue({
        code: 'custom',
        path: ['proxy', 'vpcs', r],
        message: `is not a probe region of this fleet: remove it, or probe from ${r}`,
      });
  }
}

/** The proxy URL as it may be shown: scheme, host and port (credentials never live in it, but a URL is cut to its origin anyway). */
export function shownProxy(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the proxy';
  }
}
