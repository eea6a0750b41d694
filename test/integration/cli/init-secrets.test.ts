/**
 * `mcp-canary init` with a credential: the header given on the command line is written as an SSM
 * reference, never as its value, and once the user stores the value under that name (here in moto's
 * real SSM wire, AWS_ENDPOINT_URL) `check --config` on the printed config reads it and judges healthy.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { runToEnd } from '../../helpers/child.ts';
import { CLI_BIN } from '../../helpers/cli-bin.ts';
import { startInitServer, type InitServer } from '../../helpers/init-server.ts';
import { motoCredentials, startMoto, type Moto } from '../../helpers/moto.ts';
import { describeWithTools } from '../../helpers/tools.ts';

const TOKEN = 'tok-init-8d41f07a2c6e';

let moto: Moto;
let server: InitServer;
let dir: string;

describeWithTools(['moto_server'], 'init with a secret header, then check --config on what it printed', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-canary-init-secrets-'));
    [moto, server] = await Promise.all([
      startMoto(),
      startInitServer({
        era: 'legacy',
        authorization: `Bearer ${TOKEN}`,
        tools: [
          {
            name: 'whoami',
            inputSchema: z.object({}),
            outputSchema: z.object({ user: z.string(), echoed: z.string() }),
            annotations: { readOnlyHint: true },
            // A whoami that echoes the credential: init must not record it as the expectation.
            answer: () => ({
              content: [{ type: 'text', text: `canary-bot via Bearer ${TOKEN}` }],
              structuredContent: { user: 'canary-bot', echoed: TOKEN },
            }),
          },
        ],
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([server?.close(), moto?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('writes the header as an SSM reference that check --config then reads, and the value never reaches any output', async () => {
    const file = join(dir, 'fleet.json');
    const init = await runToEnd(process.execPath, [
      CLI_BIN,
      'init',
      server.url,
      '--name',
      'whoami-prod',
      '--header',
      `Authorization: Bearer ${TOKEN}`,
      '--out',
      file,
    ]);
    expect(init.code, init.stderr).toBe(0);
    const written = readFileSync(file, 'utf8');
    for (const out of [init.stdout, init.stderr, written]) expect(out).not.toContain(TOKEN.slice(4));
    const target = (JSON.parse(written) as { targets: Array<Record<string, unknown>> }).targets[0]!;
    expect(target.headerSecrets).toEqual({ Authorization: { ssmParameter: '/mcp-canary/whoami-prod/authorization', prefix: 'Bearer ' } });
    expect(target.tool).toEqual({ name: 'whoami', expectJson: { user: 'canary-bot' } });

    // The user fills the reference in the fleet's (placeholder) home region, which is also its probe region.
    const ssm = new SSMClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials: motoCredentials });
    await ssm.send(new PutParameterCommand({ Name: '/mcp-canary/whoami-prod/authorization', Value: TOKEN, Type: 'SecureString' }));
    const env = {
      ...process.env,
      AWS_ENDPOINT_URL: moto.endpoint,
      AWS_ACCESS_KEY_ID: motoCredentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: motoCredentials.secretAccessKey,
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    const check = await runToEnd(process.execPath, [CLI_BIN, 'check', '--config', file, '--json'], { env, killAfterMs: 60_000 });
    expect(check.code, check.stderr).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject([{ target: 'whoami-prod', outcome: 'healthy', failure: null }]);
    expect(`${check.stdout}${check.stderr}`).not.toContain(TOKEN.slice(4));
  });
});
