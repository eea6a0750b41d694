/**
 * The pure parts of reaching an endpoint: a refusing proxy in words that name the proxy (from the
 * error shapes undici and Node give), a TLS alert about a certificate when the canary did or did not
 * present one, the proxy a reach goes through, and the run's proxy variable read back with the fix.
 */
import { describe, expect, it } from 'vitest';
import { readRunEnv } from '../../../../functions/base/config/env/env.ts';
import { proxyFailure } from '../../../../functions/base/net/proxy-words.ts';
import { proxyUrlOf, shownProxyUrl } from '../../../../functions/base/net/reach.ts';
import { describeTls } from '../../../../functions/base/net/tls-wall.ts';

/** undici's shape: `fetch failed`, caused by the tunnel's RequestAbortedError. */
const tunnelRefused = (status: number) =>
  Object.assign(new TypeError('fetch failed'), {
    cause: Object.assign(new Error(`Proxy response (${status}) !== 200 when HTTP Tunneling`), { code: 'UND_ERR_ABORTED' }),
  });
const refusedAt = (address: string, port: number) =>
  Object.assign(new TypeError('fetch failed'), {
    cause: Object.assign(new Error(`connect ECONNREFUSED ${address}:${port}`), { code: 'ECONNREFUSED', address, port }),
  });

describe('a proxy in words', () => {
  const proxy = 'http://proxy.internal:3128';

  it.each([
    [407, /refused CONNECT: 407 \(Proxy Authentication Required\): set or fix the proxy credentials/, false],
    [403, /refused CONNECT: 403 \(Forbidden\): the proxy policy does not allow this host/, false],
    [502, /refused CONNECT: 502 \(Bad Gateway\): the proxy could not reach the endpoint/, true],
  ])('a %i to CONNECT is the proxy’s, named by its origin', (status, words, retryable) => {
    const f = proxyFailure(tunnelRefused(status), proxy)!;
    expect(f.words).toMatch(/^the proxy http:\/\/proxy\.internal:3128 /);
    expect(f.words).toMatch(words);
    expect(f.words).toMatch(/the endpoint was not reached$/);
    expect(f.retryable).toBe(retryable);
  });

  it('a connection refused at the proxy’s port is the proxy’s; at another port it is not', () => {
    expect(proxyFailure(refusedAt('10.0.0.5', 3128), proxy)?.words).toBe(
      'the proxy http://proxy.internal:3128 cannot be reached (ECONNREFUSED); the endpoint was not tried',
    );
    expect(proxyFailure(refusedAt('10.0.0.9', 8443), proxy)).toBeNull();
    expect(proxyFailure(new Error('other'), proxy)).toBeNull();
  });

  it('never shows the credentials of a proxy URL', () => {
    expect(shownProxyUrl('http://user:s3cret-pass@proxy.internal:3128')).toBe('http://proxy.internal:3128');
    expect(proxyFailure(tunnelRefused(407), 'http://user:s3cret-pass@proxy.internal:3128')!.words).not.toContain('s3cret');
  });

  it('the proxy a reach goes through: the fleet’s, the environment’s (lowercase first, HTTPS before HTTP), or none', () => {
    expect(proxyUrlOf({ url: proxy, noProxy: [] })).toBe(proxy);
    expect(proxyUrlOf({ fromEnv: true }, { HTTPS_PROXY: 'http://a:1', https_proxy: 'http://b:2' })).toBe('http://b:2');
    expect(proxyUrlOf({ fromEnv: true }, { HTTP_PROXY: 'http://c:3' })).toBe('http://c:3');
    expect(proxyUrlOf({ fromEnv: true }, {})).toBeNull();
    expect(proxyUrlOf(undefined, { HTTPS_PROXY: 'http://a:1' })).toBeNull();
  });
});

describe('a TLS alert about a certificate', () => {
  it('without a certificate presented: the server requires one, and the field to set', () => {
    expect(describeTls('ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED', null)).toBe(
      "the server requires a client certificate, which the canary does not send (TLS alert certificate_required after the handshake, ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED); set the target's tls.clientCertificate and tls.clientKey",
    );
    expect(describeTls('ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE', 'client_certificate')).toMatch(
      /requires a client certificate.*after the key exchange.*tls\.clientCertificate/,
    );
  });

  it('with one presented: the server refused it, and what to check', () => {
    expect(describeTls('ERR_SSL_TLSV1_ALERT_UNKNOWN_CA', null, true)).toMatch(
      /^the server refused the client certificate the canary presented \(TLS alert unknown_ca, .*\): check that tls\.clientCertificate is issued by a CA the server trusts/,
    );
  });
});

describe('MCP_CANARY_PROXY, as the run reads it', () => {
  const base = { MCP_CANARY_HOME_REGION: 'eu-west-1', AWS_REGION: 'eu-west-1' };

  it('reads the proxy the stack wrote', () => {
    const proxy = { url: 'http://proxy.internal:3128', credentials: { secretsManager: 'mcp-canary/proxy' }, noProxy: ['.internal'] };
    expect(readRunEnv({ ...base, MCP_CANARY_PROXY: JSON.stringify(proxy) }).proxy).toEqual(proxy);
    expect(readRunEnv(base).proxy).toBeUndefined();
  });

  it('a broken value fails the cold start with the variable, the field and the fix', () => {
    expect(() => readRunEnv({ ...base, MCP_CANARY_PROXY: '{nope' })).toThrow(/MCP_CANARY_PROXY is not JSON: .*redeploy, or unset it/);
    expect(() => readRunEnv({ ...base, MCP_CANARY_PROXY: JSON.stringify({ url: 'ftp://proxy' }) })).toThrow(
      /MCP_CANARY_PROXY: url is not an http\(s\) URL: give the proxy as http:\/\/proxy\.internal:3128\. Fix the fleet's proxy setting/,
    );
  });
});
