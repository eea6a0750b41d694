/**
 * How one probe region's run functions reach the endpoints: the fleet's egress proxy (passed to the
 * function in its environment, `MCP_CANARY_PROXY`, without credentials — those stay a reference the
 * run reads), and the VPC they are placed in to reach it. The proxy's credentials reference is checked
 * and granted like every other (secret-scope.ts: under mcp-canary/, one scope per account and region).
 */
import { configError } from '../../functions/base/common/errors.ts';
import type { Fleet } from '../../functions/base/config/schema/fleet.ts';
import type { ProxyRuntime, VpcPlacement } from '../../functions/base/config/schema/proxy.ts';
import { proxyCredentialsRef, scopeOf, type SecretScope } from './secret-scope.ts';

export interface NetworkPlan {
  /** What the run reads from `MCP_CANARY_PROXY`. */
  readonly proxy?: ProxyRuntime;
  /** The VPC the region's run functions run in. */
  readonly vpc?: VpcPlacement;
  /** The grant the proxy's credentials need, when they are referenced. */
  readonly proxyScope?: SecretScope;
}

export function networkPlan(fleet: Fleet, region: string): NetworkPlan {
  const p = fleet.proxy;
  if (!p) return {};
  const runtime: ProxyRuntime = { url: p.url, noProxy: p.noProxy, ...(p.credentials ? { credentials: p.credentials } : {}) };
  const ref = proxyCredentialsRef(p.credentials);
  const proxyScope = ref
    ? scopeOf(-1, '', ref, (field, message) => configError(`mcp-canary fleet config: proxy.${field} ${message}.`))
    : undefined;
  const vpc = p.vpcs?.[region];
  return { proxy: runtime, ...(vpc ? { vpc } : {}), ...(proxyScope ? { proxyScope } : {}) };
}

/** The proxy as the function's environment carries it: a short JSON (Lambda's environment is 4 KB in all). */
export function proxyEnvironment(network: NetworkPlan): string | undefined {
  return network.proxy ? JSON.stringify(network.proxy) : undefined;
}
