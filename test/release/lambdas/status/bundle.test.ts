/**
 * The deployable status function: built as the stack builds it (infra/constructs/bundle.ts), imported in a
 * fresh Node process and invoked once with its schedule's input against moto (CloudWatch and S3), the way
 * Lambda would. Catches an ESM bundle that cannot load the S3 client, or a handler that reads the wrong
 * environment, before a deploy. Its size is printed, never asserted.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StatusPayload } from '../../../../functions/base/config/schema/status-page.ts';
import { StatusEnvVar } from '../../../../functions/base/config/schema/status-page.ts';
import { bundleHandler, STATUS_HANDLER_ENTRY, type BuiltBundle } from '../../../../infra/constructs/bundle.ts';
import { runToEnd } from '../../../helpers/child.ts';
import { motoCredentials, startMoto, type Moto } from '../../../helpers/moto.ts';
import { HOME_REGION } from '../../../helpers/run/fixtures.ts';
import { describeNeeding } from '../../../helpers/tools.ts';

const describe = describeNeeding(['moto_server']);

const CHILD = `
const { handler } = await import(process.env.BUNDLE_URL);
const result = await handler(JSON.parse(process.env.EVENT));
process.stdout.write('RESULT ' + JSON.stringify(result) + '\\n');
`;

let moto: Moto;
let outdir: string;
let bundle: BuiltBundle;

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'mcp-canary-status-bundle-'));
  [moto, bundle] = await Promise.all([startMoto(), bundleHandler(STATUS_HANDLER_ENTRY, outdir)]);
}, 120_000);
afterAll(async () => {
  await moto?.stop();
  await rm(outdir, { recursive: true, force: true });
});

describe('the status bundle', () => {
  it('loads in a fresh Node process and writes the page to S3 from its schedule input', async () => {
    const s3 = new S3Client({ region: HOME_REGION, endpoint: moto.endpoint, credentials: motoCredentials, forcePathStyle: true });
    await s3.send(new CreateBucketCommand({ Bucket: 'status-bundle' }));
    const event: StatusPayload = {
      title: 'Bundle check',
      fleet: 'McpCanary',
      namespace: 'McpCanaryBundle',
      failureThreshold: 3,
      days: 90,
      targets: [{ metric: 'fresh-target', name: 'Fresh service', regions: 2, quorum: 2, periodSeconds: 60 }],
      maintenance: [],
    };
    const child = await runToEnd(process.execPath, ['--input-type=module', '-e', CHILD], {
      env: {
        BUNDLE_URL: pathToFileURL(bundle.file).href,
        EVENT: JSON.stringify(event),
        [StatusEnvVar.bucket]: 'status-bundle',
        AWS_REGION: HOME_REGION,
        AWS_ENDPOINT_URL: moto.endpoint,
        AWS_ACCESS_KEY_ID: motoCredentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: motoCredentials.secretAccessKey,
      },
    });
    expect(child.stderr).not.toMatch(/Dynamic require|ERR_|TypeError|ReferenceError/);
    expect(child.code, child.stderr).toBe(0);
    const line = child.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    expect(JSON.parse(line!.slice('RESULT '.length))).toMatchObject({ written: ['status.json', 'index.html'], targets: 1 });
    const page = await s3.send(new GetObjectCommand({ Bucket: 'status-bundle', Key: 'index.html' }));
    expect(page.ContentType).toBe('text/html; charset=utf-8');
    // A fleet deployed a minute ago has no history yet: the page says so instead of failing.
    expect(await page.Body!.transformToString()).toContain('</span> No data</p>');
    console.log(`status bundle: ${Math.round(bundle.bytes / 1024)} KB`);
  });
});
