/**
 * The NO_PROXY entries undici's EnvHttpProxyAgent does not read: CIDR ranges (`10.0.0.0/8`,
 * `fd00::/8`, as curl 7.86+, Go and Python read them) and IPv6 literals (`::1`, `[::1]`, `[::1]:8443`;
 * undici takes the last `:1` of `::1` for a port and never matches). Without this, a host a person or
 * the fleet listed to go direct is sent to the proxy, which answers for it (403, 502) or cannot reach
 * it: the run blames the proxy for a host that was never meant to pass it. Host names, `.domain`
 * suffixes, `host:port` and `*` stay undici's. Only an IP literal in the URL is matched against a range,
 * as curl does: a name is not resolved to decide.
 */
import { BlockList, isIP } from 'node:net';

/** Whether an IP-literal host (with or without brackets) on `port` is listed to go direct. */
export type DirectByAddress = (host: string, port: number) => boolean;

/** The entries of a NO_PROXY value or list (comma or space separated), as undici splits them. */
export function noProxyEntries(value: string | readonly string[]): string[] {
  const all = typeof value === 'string' ? [value] : value;
  return all.flatMap((v) => v.split(/[,\s]/)).filter(Boolean);
}

export function directByAddress(entries: readonly string[]): DirectByAddress {
  const ranges: Array<{ list: BlockList; port: number }> = [];
  for (const raw of entries) {
    const entry = parse(raw);
    if (!entry) continue;
    const list = new BlockList();
    list.addSubnet(entry.address, entry.prefix, entry.family);
    ranges.push({ list, port: entry.port });
  }
  if (ranges.length === 0) return () => false;
  return (host, port) => {
    const address = host.replace(/^\[|\]$/g, '');
    const family = isIP(address);
    if (family === 0) return false;
    return ranges.some((r) => (r.port === 0 || r.port === port) && r.list.check(address, family === 6 ? 'ipv6' : 'ipv4'));
  };
}

function parse(raw: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6'; port: number } | null {
  const cidr = /^\[?([0-9a-fA-F:.]+)\]?\/(\d{1,3})$/.exec(raw);
  if (cidr) {
    const family = isIP(cidr[1]!);
    const prefix = Number(cidr[2]);
    if (family === 0 || prefix > (family === 6 ? 128 : 32)) return null;
    return { address: cidr[1]!, prefix, family: family === 6 ? 'ipv6' : 'ipv4', port: 0 };
  }
  // An IPv6 literal, bare (`::1`) or bracketed with an optional port (`[::1]:8443`).
  const bracketed = /^\[([0-9a-fA-F:.]+)\](?::(\d+))?$/.exec(raw);
  const address = bracketed ? bracketed[1]! : raw;
  if (isIP(address) !== 6) return null;
  return { address, prefix: 128, family: 'ipv6', port: bracketed?.[2] ? Number(bracketed[2]) : 0 };
}
