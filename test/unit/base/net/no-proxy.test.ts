/**
 * The NO_PROXY entries the canary reads beside undici (functions/base/net/no-proxy.ts): CIDR ranges and IPv6
 * literals, matched against an IP literal in the URL only (as curl does), with a port when one is given.
 */
import { describe, expect, it } from 'vitest';
import { directByAddress, noProxyEntries } from '../../../../functions/base/net/no-proxy.ts';

describe('NO_PROXY ranges and IPv6 literals', () => {
  const direct = directByAddress(noProxyEntries('10.0.0.0/8, fd00::/8 ::1,[2001:db8::5]:8443,example.com,.corp,*.svc,host:80'));

  it.each([
    ['10.20.30.40', 443, true],
    ['11.0.0.1', 443, false],
    ['[fd12::1]', 443, true],
    ['fe80::1', 443, false],
    ['[::1]', 8080, true],
    ['[2001:db8::5]', 8443, true],
    ['[2001:db8::5]', 443, false],
    // Names are undici's (suffixes, host:port): never resolved to decide here.
    ['example.com', 443, false],
  ] as const)('%s:%d → direct %s', (host, port, expected) => {
    expect(direct(host, port)).toBe(expected);
  });

  it('ignores what is not an address range (a bad prefix, a name with a slash)', () => {
    const none = directByAddress(noProxyEntries(['10.0.0.0/33', 'example.com/8', '']));
    expect(none('10.0.0.1', 443)).toBe(false);
  });
});
