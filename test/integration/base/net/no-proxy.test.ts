/**
 * NO_PROXY as people write it, with a real forward proxy (`proxy` from npm, it records every CONNECT)
 * and a TLS MCP server on 127.0.0.1 whose certificate a private CA signed: `check` in a child process.
 * A CIDR range (curl 7.86+, Go and Python read them; undici alone does not) and the fleet's `noProxy`
 * list send a listed address direct, the proxy never asked; an address outside the ranges, or a
 * `host:port` entry for another port, still goes through it. Before, every CIDR entry was ignored and
 * the listed host sent to the proxy.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { runToEnd } from '../../../helpers/child.ts';
import { startForwardProxy, type ForwardProxy } from '../../../helpers/net/forward-proxy.ts';
import { startMtlsMcp, type MtlsServer } from '../../../helpers/net/mtls-server.ts';
import { makePki, type Pki } from '../../../helpers/net/pki.ts';
import { describeNeeding } from '../../../helpers/tools.ts';
import { CLI_BIN } from '../../../helpers/cli-bin.ts';

const describe = describeNeeding(['openssl']);
const BIN = CLI_BIN;
const tool = { name: 'get_rate', expectText: 'EURUSD' };
const PROXY_ENV = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'];

describe('NO_PROXY forms', () => {
  let pki: Pki;
  let server: MtlsServer;
  let proxy: ForwardProxy;
  const fleet = (extra: object = {}) => {
    const file = join(pki.dir, `fleet-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        homeRegion: 'eu-west-1',
        targets: [{ name: 'listed', url: server.url, tool, tls: { ca: `file:${pki.caFile}` } }],
        ...extra,
      }),
    );
    return file;
  };
  beforeAll(async () => {
    pki = makePki();
    [server, proxy] = await Promise.all([startMtlsMcp(pki, { version: 'TLSv1.3', requireClientCert: false }), startForwardProxy()]);
  });
  afterAll(async () => {
    await Promise.all([server?.close(), proxy?.close()]);
    pki?.cleanup();
  });
  beforeEach(() => {
    proxy.connects.length = 0;
  });

  async function check(file: string, vars: Record<string, string>) {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of PROXY_ENV) delete env[k];
    const r = await runToEnd(process.execPath, [BIN, 'check', '--config', file, '--json'], { env: { ...env, ...vars } });
    return (JSON.parse(r.stdout) as Array<{ outcome: string }>)[0]!.outcome;
  }

  it.each([
    ['a CIDR range holding the address', '10.0.0.0/8,127.0.0.0/8'],
    ['a /32', '127.0.0.1/32'],
    ['lowercase no_proxy with spaces', ' 192.168.0.0/16 127.0.0.0/8 '],
    ['the address with its port', () => `127.0.0.1:${server.port}`],
    ['*', '*'],
  ])('%s → direct, the proxy never asked', async (_, list) => {
    const value = typeof list === 'function' ? list() : list;
    const name = value.startsWith(' ') ? 'no_proxy' : 'NO_PROXY';
    expect(await check(fleet(), { HTTPS_PROXY: proxy.url, [name]: value })).toBe('healthy');
    expect(proxy.connects).toEqual([]);
  });

  it.each([
    ['a range that does not hold it', '10.0.0.0/8'],
    ['the address with another port', '127.0.0.1:1'],
  ])('%s → through the proxy', async (_, value) => {
    expect(await check(fleet(), { HTTPS_PROXY: proxy.url, NO_PROXY: value })).toBe('healthy');
    expect(proxy.connects).toContain(`127.0.0.1:${server.port}`);
  });

  it("the fleet's proxy.noProxy with a CIDR range → direct (what the Lambda does)", async () => {
    const file = fleet({ proxy: { url: proxy.url, noProxy: ['127.0.0.0/8'] } });
    expect(await check(file, {})).toBe('healthy');
    expect(proxy.connects).toEqual([]);
    const through = fleet({ proxy: { url: proxy.url, noProxy: ['172.16.0.0/12'] } });
    expect(await check(through, {})).toBe('healthy');
    expect(proxy.connects).toContain(`127.0.0.1:${server.port}`);
  });
});
