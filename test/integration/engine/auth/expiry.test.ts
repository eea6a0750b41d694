/**
 * Warnings before a credential or certificate expires: a healthy verdict that carries them (with the
 * ISO date), in the verdict, the CLI's human output and the scheduled run's record — and never a
 * change of outcome or exit code.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CertificateWatch, bearerWarnings, jwtExpiry, secretRefWarnings } from '../../../../functions/engine/auth/expiry.ts';
import { OAuthSettings } from '../../../../functions/base/config/schema/oauth.ts';
import { Target } from '../../../../functions/base/config/schema/target.ts';
import { judge } from '../../../../functions/engine/judge/judge.ts';
import { run } from '../../../../functions/lambdas/run/run.ts';
import type { RunRecord } from '../../../../functions/base/common/run-record.ts';
import type { FetchLike } from '../../../../functions/base/net/wire.ts';
import { runToEnd } from '../../../helpers/child.ts';
import { startMoto, type Moto } from '../../../helpers/moto.ts';
import { HOME_REGION, NAMESPACE, motoRunDeps } from '../../../helpers/run/fixtures.ts';
import { cloudWatchAt, readRuns } from '../../../helpers/run/readback.ts';
import { TICKET_WEIGHT } from '../../../../functions/base/common/run-record.ts';
import { expiringCertificate, fetchTrusting, startHttpsMcp, type TestPki } from '../../../helpers/auth/tls.ts';
import { describeWithTools } from '../../../helpers/tools.ts';
import { CLI_BIN } from '../../../helpers/cli-bin.ts';

const DAY = 86_400_000;
const BIN = CLI_BIN;

async function jwtExpiringIn(ms: number): Promise<{ jwt: string; exp: number }> {
  const exp = Math.floor((Date.now() + ms) / 1000);
  const jwt = await new SignJWT({ sub: 'canary' })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode('upstream-signing-key-0123456789abcdef'));
  return { jwt, exp: exp * 1000 };
}

describe('reading expiry dates (pure)', () => {
  it("reads a JWT bearer's exp and ignores what is not a JWT", async () => {
    const { jwt, exp } = await jwtExpiringIn(3 * DAY);
    expect(jwtExpiry(`Bearer ${jwt}`)).toBe(exp);
    expect(jwtExpiry('Bearer sk-live-not-a-jwt')).toBeNull();
    expect(jwtExpiry('a.b.c')).toBeNull();
  });

  it('warns for a JWT header inside the window, names the header, never the token', async () => {
    const { jwt, exp } = await jwtExpiringIn(2 * DAY);
    const now = Date.now();
    const w = bearerWarnings({ Authorization: `Bearer ${jwt}`, 'X-Key': 'plain' }, 7, now);
    expect(w).toEqual([
      {
        kind: 'credential_expiry',
        detail: `the JWT in header Authorization expires ${new Date(exp).toISOString()} (in 2 days)`,
        expiresAt: new Date(exp).toISOString(),
      },
    ]);
    expect(bearerWarnings({ Authorization: `Bearer ${jwt}` }, 1, now)).toEqual([]);
    expect(bearerWarnings({ Authorization: `Bearer ${jwt}` }, 0, now)).toEqual([]);
  });

  it('warns for an OAuth secret reference whose expiresAt is inside the window', () => {
    const oauth = OAuthSettings.parse({ clientId: 'canary', clientSecret: { secretsManager: 'canary/oauth', expiresAt: '2026-12-05' } });
    const now = Date.parse('2026-11-30T12:00:00Z');
    expect(secretRefWarnings(oauth, 7, now)).toEqual([
      {
        kind: 'credential_expiry',
        detail: 'the OAuth credential auth.oauth.clientSecret (client canary) expires 2026-12-05T00:00:00.000Z (in 5 days)',
        expiresAt: '2026-12-05T00:00:00.000Z',
      },
    ]);
    expect(secretRefWarnings(oauth, 3, now)).toEqual([]);
  });

  it('looks at a certificate at most once an hour per origin', async () => {
    let clock = Date.parse('2026-11-30T00:00:00Z');
    const notAfter = clock + 3 * DAY;
    const watch = new CertificateWatch(
      async () => notAfter,
      () => clock,
    );
    const first = await watch.warning('https://mcp.example.com/mcp', 14);
    expect(first).toEqual({
      kind: 'certificate_expiry',
      detail: 'the TLS certificate of mcp.example.com expires 2026-12-03T00:00:00.000Z (in 3 days)',
      expiresAt: '2026-12-03T00:00:00.000Z',
    });
    clock += 59 * 60_000;
    await watch.warning('https://mcp.example.com/other', 14);
    expect(watch.handshakes).toBe(1);
    clock += 60_000;
    await watch.warning('https://mcp.example.com/mcp', 14);
    expect(watch.handshakes).toBe(2);
    expect(await watch.warning('http://mcp.example.com/mcp', 14)).toBeNull();
    expect(await watch.warning('https://mcp.example.com/mcp', 2)).toBeNull();
  });
});

describeWithTools(['openssl'], 'a healthy endpoint whose certificate expires in 3 days and whose bearer JWT expires in 2', () => {
  let pki: TestPki;
  let server: { url: string; close(): Promise<void> };
  let jwt: string;
  let jwtExp: number;
  let trusting: FetchLike;
  let moto: Moto;

  beforeAll(async () => {
    pki = expiringCertificate(3);
    ({ jwt, exp: jwtExp } = await jwtExpiringIn(2 * DAY));
    server = await startHttpsMcp(pki, `Bearer ${jwt}`);
    trusting = await fetchTrusting(pki.caPem);
    moto = await startMoto();
  });
  afterAll(async () => {
    await server?.close();
    await moto?.stop();
  });

  const target = () =>
    Target.parse({
      name: 'rates-tls',
      url: server.url,
      headers: { Authorization: `Bearer ${jwt}` },
      tool: { name: 'get_rate' },
      timeoutMs: 3_000,
      budgetMs: 10_000,
    });

  it('stays healthy and carries both warnings with their ISO dates; the certificate is looked at once', async () => {
    const certificates = new CertificateWatch();
    const v = await judge(target(), { fetch: trusting, certificates });
    expect(v).toMatchObject({ outcome: 'healthy', failure: null });
    const kinds = v.warnings.map((w) => w.kind).sort();
    expect(kinds).toEqual(['certificate_expiry', 'credential_expiry']);
    const cert = v.warnings.find((w) => w.kind === 'certificate_expiry')!;
    expect(cert.detail).toMatch(/^the TLS certificate of 127\.0\.0\.1:\d+ expires \d{4}-\d\d-\d\dT[\d:.]+Z \(in 3 days\)$/);
    expect(Math.abs(Date.parse(cert.expiresAt!) - (Date.now() + 3 * DAY))).toBeLessThan(120_000);
    const cred = v.warnings.find((w) => w.kind === 'credential_expiry')!;
    expect(cred.expiresAt).toBe(new Date(jwtExp).toISOString());
    expect(JSON.stringify(v)).not.toContain(jwt);
    await judge(target(), { fetch: trusting, certificates });
    expect(certificates.handshakes).toBe(1);
  });

  it("puts the warnings into the scheduled run's record, and the run counts for the ticket tier (never a page)", async () => {
    const lines: string[] = [];
    await run(
      { targets: [{ name: 'rates-tls', url: server.url, headers: { Authorization: `Bearer ${jwt}` }, tool: { name: 'get_rate' } }] },
      motoRunDeps(moto.endpoint, lines, { judge: (t, oauthSecrets) => judge(t, { fetch: trusting, oauthSecrets }) }),
    );
    const record = lines.map((l) => JSON.parse(l) as RunRecord).find((r) => r.message === 'mcp-canary run')!;
    expect(record.verdict.outcome).toBe('healthy');
    expect(record.verdict.warnings.map((w) => [w.kind, typeof w.expiresAt])).toEqual(
      expect.arrayContaining([
        ['certificate_expiry', 'string'],
        ['credential_expiry', 'string'],
      ]),
    );
    expect(lines.join('\n')).not.toContain(jwt);
    // The Verdict metric the warning-tier alarm reads: a healthy run with a warning adds the ticket weight, not a failure.
    expect(await readRuns(cloudWatchAt(moto.endpoint, HOME_REGION), NAMESPACE, 'rates-tls')).toEqual({ runs: 1, worst: TICKET_WEIGHT });
  });

  it('prints each warning under the verdict line in the CLI, and exits 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-ca-'));
    try {
      writeFileSync(join(dir, 'ca.pem'), pki.caPem);
      const r = await runToEnd(
        process.execPath,
        [BIN, 'check', server.url, '--header', `Authorization: Bearer ${jwt}`, '--tool', 'get_rate'],
        {
          env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') },
        },
      );
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split('\n');
      const verdictLine = lines.findIndex((l) => l.startsWith('HEALTHY'));
      expect(verdictLine).toBeGreaterThan(0);
      // The two warnings right under the verdict line (the trace id follows them).
      expect(lines.slice(verdictLine + 1, verdictLine + 3).join('\n')).toMatch(
        /^ {2}! (certificate|credential)_expiry {2}.+\(in [23] days\)\n {2}! (certificate|credential)_expiry {2}.+\(in [23] days\)$/,
      );
      expect(r.stdout + r.stderr).not.toContain(jwt);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
