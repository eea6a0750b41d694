/**
 * A server whose certificate comes from a private CA (made here with openssl): `tls` without the CA,
 * healthy with it — in the CLI (`check --config`, a `file:` reference, a real child process) and in the
 * scheduled run (the run handler's path: the CA bundle in Secrets Manager on moto, read by the
 * SecretReader, judged, published). The CA is added to the public roots, not put in their place.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { RunRecord } from '../../../../functions/base/common/run-record.ts';
import { run } from '../../../../functions/lambdas/run/run.ts';
import { tlsOptions } from '../../../../functions/base/net/reach.ts';
import { runToEnd } from '../../../helpers/child.ts';
import { startMoto, type Moto } from '../../../helpers/moto.ts';
import { motoRunDeps, motoSecretClients, PROBE_REGION } from '../../../helpers/run/fixtures.ts';
import { makePki, type Pki } from '../../../helpers/net/pki.ts';
import { startMtlsMcp, type MtlsServer } from '../../../helpers/net/mtls-server.ts';
import { describeNeeding } from '../../../helpers/tools.ts';
import { rootCertificates } from 'node:tls';
import { CLI_BIN } from '../../../helpers/cli-bin.ts';

const describe = describeNeeding(['openssl', 'moto_server']);
const BIN = CLI_BIN;
const tool = { name: 'get_rate', expectText: 'EURUSD' };

describe('a private CA', () => {
  let pki: Pki;
  let server: MtlsServer;
  let moto: Moto;
  beforeAll(async () => {
    pki = makePki();
    [server, moto] = await Promise.all([startMtlsMcp(pki, { version: 'TLSv1.3', requireClientCert: false }), startMoto()]);
  });
  afterAll(async () => {
    await Promise.all([server?.close(), moto?.stop()]);
    pki?.cleanup();
  });
  beforeEach(() => moto.reset());

  it('is trusted beside the public roots, not instead of them', () => {
    const ca = tlsOptions({ ca: pki.caPem }).ca as string[];
    expect(ca.at(-1)).toBe(pki.caPem);
    expect(ca.length).toBeGreaterThan(rootCertificates.length);
    expect(ca).toEqual(expect.arrayContaining([...rootCertificates]));
  });

  it('in the CLI: tls without it, healthy with it (check --config, a file: reference)', async () => {
    const config = (tls: object | undefined) => {
      const file = join(pki.dir, `fleet-${tls ? 'ca' : 'plain'}.json`);
      writeFileSync(
        file,
        JSON.stringify({ homeRegion: 'eu-west-1', targets: [{ name: 'private', url: server.url, tool, ...(tls ? { tls } : {}) }] }),
      );
      return file;
    };
    const env = { ...process.env, NODE_EXTRA_CA_CERTS: '' };
    const without = await runToEnd(process.execPath, [BIN, 'check', '--config', config(undefined), '--json'], { env });
    const withCa = await runToEnd(process.execPath, [BIN, 'check', '--config', config({ ca: `file:${pki.caFile}` }), '--json'], { env });
    const [plain] = JSON.parse(without.stdout) as Array<{ outcome: string; failure: string; detail: string }>;
    expect(plain!.failure).toBe('tls');
    expect(plain!.detail).toMatch(/issuer the canary does not trust|self-signed/);
    expect(without.code).not.toBe(0);
    const [trusted] = JSON.parse(withCa.stdout) as Array<{ outcome: string }>;
    expect(withCa.stderr).toBe('');
    expect(trusted!.outcome).toBe('healthy');
    expect(withCa.code).toBe(0);
  });

  it('in the scheduled run: the CA bundle read from Secrets Manager, tls without it, healthy with it', async () => {
    await motoSecretClients(moto.endpoint)
      .secretsManager(PROBE_REGION)
      .send(new CreateSecretCommand({ Name: 'mcp-canary/private-ca', SecretString: pki.caPem }));
    const lines: string[] = [];
    const summary = await run(
      {
        targets: [
          { name: 'private-plain', url: server.url, tool },
          { name: 'private-ca', url: server.url, tool, tls: { ca: { secretsManager: 'mcp-canary/private-ca' } } },
        ],
      },
      motoRunDeps(moto.endpoint, lines),
    );
    const by = Object.fromEntries(summary.verdicts.map((v) => [v.target, v]));
    expect(by['private-plain']).toMatchObject({ outcome: 'failed', failure: 'tls' });
    expect(by['private-ca']).toMatchObject({ outcome: 'healthy', failure: null });
    const records = lines.map((l) => JSON.parse(l) as RunRecord).filter((r) => r.message === 'mcp-canary run');
    expect(records.map((r) => r.target).sort()).toEqual(['private-ca', 'private-plain']);
  });

  it('in the scheduled run: a file: reference is refused with the fix, never read', async () => {
    const lines: string[] = [];
    const summary = await run(
      { targets: [{ name: 'private-file', url: server.url, tool, tls: { ca: `file:${pki.caFile}` } }] },
      motoRunDeps(moto.endpoint, lines),
    );
    expect(summary.verdicts[0]).toMatchObject({ outcome: 'inconclusive' });
    const record = lines.map((l) => JSON.parse(l) as RunRecord).find((r) => r.message === 'mcp-canary run')!;
    expect(JSON.stringify(record)).toMatch(/tls\.ca: a file reference .* is for the CLI only.*secretsManager/);
  });
});
