/**
 * The deploy rehearsal (test/helpers/infra/rehearsal/) of a fleet with everything the example fleet leaves
 * off: SLO burn alarms (composite alarms over metric alarms, suppressed by the target's critical alarm), a
 * public status page (S3 buckets and policies, the writer and its schedule, CloudFront with OAC and a
 * response headers policy), a delegated-OAuth target (the refresher), a proxy with a VPC per probe region
 * (made in moto's EC2 first, as a user would) and telemetry to a collector. Every stack deployed into
 * moto_server as `cdk deploy --all` would, every new resource type and property accounted for, the
 * references between them resolved to what was deployed; then the deployed run handler (with its side
 * files) and the deployed status writer invoked through their schedules' real payloads.
 *
 * What moto cannot create at all, and what checks it instead:
 * - AWS::CloudFront::ResponseHeadersPolicy: moto has no API for it. test/unit/infra/status.test.ts checks the
 *   headers; here, the distribution names the policy's id.
 * - A composite alarm's AlarmRule and ActionsSuppressor settings: moto stores composites without them.
 *   burn.test.ts and timing.test.ts check their meaning; here, every alarm they name is deployed.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DescribeSecretCommand } from '@aws-sdk/client-secrets-manager';
import { GetBucketPolicyCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rateTool, startMcpServer, startRatesApi, type RatesApi, type RunningServer } from '../../../functions/demo/servers.ts';
import { TELEMETRY_EXPORT_FILE, UNDICI_FILE } from '../../../infra/constructs/bundle.ts';
import { startMoto, type Moto } from '../../helpers/moto.ts';
import { Aws } from '../../helpers/infra/rehearsal/aws.ts';
import { bootstrapRegions } from '../../helpers/infra/rehearsal/bootstrap.ts';
import type { Deployment } from '../../helpers/infra/rehearsal/deployment.ts';
import { rehearse } from '../../helpers/infra/rehearsal/deploy.ts';
import {
  createFeatureSecrets,
  createUserVpcs,
  FEATURE_REGIONS,
  featureFleet,
  GRANT_SECRET,
  withTlsOnlyLifted,
  type UserVpc,
} from '../../helpers/infra/rehearsal/features.ts';
import { synthAssembly } from '../../helpers/infra/rehearsal/fleet.ts';
import { Invoker, type Invocation } from '../../helpers/infra/rehearsal/invoke.ts';
import { runRecords } from '../../helpers/infra/rehearsal/landing.ts';
import { alarmsInRule } from '../../helpers/infra/rehearsal/types/cloudwatch.ts';
import { codeObject } from '../../helpers/infra/rehearsal/types/lambda.ts';
import { describeNeeding } from '../../helpers/tools.ts';

const describe = describeNeeding(['moto_server']);

const FLEET = 'Feat';
const NAMESPACE = 'McpCanaryFeatures';

interface Export {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
}

/** An OTLP/HTTP collector on loopback: records each export and accepts it. */
async function startCollector(): Promise<{ url: string; exports: Export[]; server: Server }> {
  const exports: Export[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports.push({ path: req.url ?? '', headers: req.headers });
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports, server };
}

let moto: Moto;
let api: RatesApi;
let servers: RunningServer[];
let collector: Awaited<ReturnType<typeof startCollector>>;
let vpcs: Record<string, UserVpc>;
let assembly: { dir: string; remove(): void };
let d: Deployment;
let invoker: Invoker;
/** The page bucket, as the deployed status writer's environment names it. */
const pageBucket = () =>
  (
    d.ofType('AWS::Lambda::Function').find((f) => f.ref === `${FLEET}-status`)!.resolved.Environment as {
      Variables: Record<string, string>;
    }
  ).Variables.MCP_CANARY_STATUS_BUCKET!;
const log = (line: string) => console.log(`rehearsal (features): ${line}`);

beforeAll(async () => {
  api = await startRatesApi();
  [moto, collector, ...servers] = await Promise.all([
    startMoto({ awsManagedPolicies: true }),
    startCollector(),
    startMcpServer({ era: 'modern', tools: [rateTool(api)] }),
    startMcpServer({ era: 'legacy', tools: [rateTool(api)] }),
  ] as const);
  const user = new Aws(moto.endpoint);
  try {
    // What the user makes before `cdk deploy`: the VPCs `proxy.vpcs` names, and the referenced secrets.
    // One after another: moto_server loading its EC2 and CloudFormation backends at once answers 500.
    vpcs = await createUserVpcs(user);
    await createFeatureSecrets(user);
    await bootstrapRegions(user, [...FEATURE_REGIONS]);
  } finally {
    user.destroy();
  }
  const started = performance.now();
  const fleet = featureFleet(NAMESPACE, vpcs, { modern: servers[0]!.url, legacy: servers[1]!.url, collector: collector.url });
  assembly = synthAssembly([{ id: FLEET, config: fleet }]);
  log(`synth, bundling included: ${Math.round(performance.now() - started)} ms`);
  d = await rehearse(assembly.dir, moto.endpoint);
  invoker = new Invoker(d);
  log(d.summary());
}, 180_000);

afterAll(async () => {
  invoker?.close();
  d?.aws.destroy();
  await Promise.all([...(servers ?? []).map((s) => s.close()), api?.close(), new Promise((r) => collector?.server.close(r))]);
  assembly?.remove();
  await moto?.stop();
});

describe('a fleet with SLO burn alarms, a public status page, the refresher, a proxy VPC and telemetry, rehearsed', () => {
  it('deploys every stack, each in its region, and accounts for every new resource type', () => {
    const names = [...d.stacks.values()].map((s) => `${s.stackName} ${s.region}`).sort();
    expect(names).toEqual(expect.arrayContaining([`${FLEET}-slo-burn us-east-1`, `${FLEET}-status us-east-1`, `${FLEET}-home us-east-1`]));
    for (const r of FEATURE_REGIONS) expect(names).toContain(`${FLEET}-probe-${r} ${r}`);
    const tally = d.tally();
    log(JSON.stringify(tally));
    expect(tally['AWS::CloudWatch::CompositeAlarm']).toEqual({ api: 6 }); // page and ticket, per target
    expect(tally['AWS::S3::Bucket']).toEqual({ moto: 2 });
    expect(tally['AWS::S3::BucketPolicy']).toEqual({ api: 2 });
    expect(tally['AWS::CloudFront::Distribution']).toEqual({ api: 1 });
    expect(tally['AWS::CloudFront::OriginAccessControl']).toEqual({ api: 1 });
    expect(tally['AWS::CloudFront::ResponseHeadersPolicy']).toEqual({ impossible: 1 });
    log(`${d.resources((r) => r.by !== 'moto').length} of ${d.resources().length} resources created by the rehearsal or impossible`);
  });

  it("suppresses each burn page by its target's deployed critical alarm, and reads only deployed burn alarms", () => {
    const alarms = new Set(d.ofType('AWS::CloudWatch::Alarm').map((a) => a.ref));
    const composites = d.ofType('AWS::CloudWatch::CompositeAlarm');
    for (const c of composites) {
      const rule = String(c.resolved.AlarmRule);
      expect(alarmsInRule(rule).length, rule).toBeGreaterThan(1);
      for (const name of alarmsInRule(rule)) expect(alarms.has(name), `${c.ref} reads ${name}`).toBe(true);
    }
    const pages = composites.filter((c) => String(c.ref).endsWith('/slo-burn-page'));
    expect(pages).toHaveLength(3);
    for (const p of pages) {
      const target = String(p.ref).split('/')[1];
      expect(p.resolved.ActionsSuppressor).toBe(`${FLEET}/${target}/critical`);
      expect(alarms.has(String(p.resolved.ActionsSuppressor))).toBe(true);
    }
  });

  it('serves the page bucket through the deployed distribution, and lets only that distribution read it', () => {
    const [dist] = d.ofType('AWS::CloudFront::Distribution');
    const [oac] = d.ofType('AWS::CloudFront::OriginAccessControl');
    const bucket = pageBucket();
    const config = dist!.resolved.DistributionConfig as { Origins: Array<{ DomainName: string; OriginAccessControlId: string }> };
    expect(config.Origins).toEqual([
      expect.objectContaining({ DomainName: `${bucket}.s3.us-east-1.amazonaws.com`, OriginAccessControlId: oac!.ref }),
    ]);
    const policy = d.ofType('AWS::S3::BucketPolicy').find((p) => p.resolved.Bucket === bucket)!;
    expect(JSON.stringify(policy.resolved.PolicyDocument)).toContain(`:cloudfront::${d.aws.account}:distribution/${dist!.ref}`);
    expect(d.stacks.get(`${FLEET}-status`)!.outputs.get('PageDomain')).toBe(dist!.attributes.DomainName);
  });

  it("runs the refresher over grants whose secrets exist, and the probes in the user's VPCs with ENI rights", async () => {
    const rule = d.ofType('AWS::Events::Rule').find((r) => String(r.resolved.Description).includes('delegated OAuth'))!;
    const input = JSON.parse((rule.resolved.Targets as Array<{ Input: string }>)[0]!.Input) as { grants: Array<{ secret: string }> };
    expect(input.grants.map((g) => g.secret)).toEqual([GRANT_SECRET]);
    for (const g of input.grants) await d.aws.at('us-east-1').secretsManager.send(new DescribeSecretCommand({ SecretId: g.secret }));

    const runs = d.ofType('AWS::Lambda::Function').filter((f) => /-probe-/.test(f.stackName));
    expect(runs.length).toBeGreaterThanOrEqual(2);
    for (const f of runs) {
      const vpc = vpcs[f.region]!;
      expect(f.resolved.VpcConfig, f.logicalId).toEqual({ SubnetIds: vpc.subnetIds, SecurityGroupIds: vpc.securityGroupIds });
    }
    const eni = d
      .resources((r) => /-probe-/.test(r.stackName) && r.type === 'AWS::IAM::Policy')
      .map((p) => JSON.stringify(p.resolved.PolicyDocument));
    for (const region of FEATURE_REGIONS)
      expect(eni.some((p) => p.includes('ec2:CreateNetworkInterface') && p.includes(vpcs[region]!.subnetIds[0]!))).toBe(true);
  });

  it('deploys the run bundle with its telemetry and undici side files', async () => {
    for (const f of d.ofType('AWS::Lambda::Function').filter((r) => /-probe-/.test(r.stackName))) {
      const { bytes } = await codeObject(d.aws.at(f.region), f.resolved.Code as { S3Bucket: string; S3Key: string });
      expect(Object.keys(unzipSync(bytes)).sort(), f.logicalId).toEqual(
        expect.arrayContaining(['index.mjs', TELEMETRY_EXPORT_FILE, UNDICI_FILE]),
      );
      expect(Object.keys((f.resolved.Environment as { Variables: object }).Variables)).toEqual(
        expect.arrayContaining(['MCP_CANARY_TELEMETRY', 'MCP_CANARY_PROXY']),
      );
    }
  });

  describe('invoked through the deployed schedules', () => {
    let run: Invocation;
    let status: Invocation;
    let written: { json: string; html: string };
    beforeAll(async () => {
      const periodStart = new Date(Math.ceil(Date.now() / 300_000) * 300_000);
      const schedule = (stack: string) => {
        const s = d.ofType('AWS::Scheduler::Schedule').find((r) => r.stackName === stack)!;
        return { region: s.region, name: s.ref!, groupName: s.resolved.GroupName as string | undefined };
      };
      // The probes first: the status page then reads the verdicts they published.
      run = await invoker.run(schedule(`${FLEET}-probe-us-east-1`), periodStart);
      const s3 = d.aws.at('us-east-1').s3;
      const read = async (key: string) =>
        (await s3.send(new GetObjectCommand({ Bucket: pageBucket(), Key: key }))).Body!.transformToString();
      [status, written] = await withTlsOnlyLifted(s3, pageBucket(), async () => {
        const invocation = await invoker.run(schedule(`${FLEET}-status`), periodStart);
        return [
          invocation,
          invocation.exitCode === 0 ? { json: await read('status.json'), html: await read('index.html') } : { json: '{}', html: '' },
        ] as const;
      });
    }, 120_000);

    it('judges each target from the deployed run bundle, and exports the run over OTLP with the secret header', () => {
      expect(run.exitCode, run.stderr).toBe(0);
      const records = runRecords([run]);
      expect(records.map((r) => `${r.target} ${r.verdict.outcome}`).sort()).toEqual(['legacy healthy', 'rates healthy']);
      const paths = new Set(collector.exports.map((e) => e.path));
      expect(paths).toEqual(new Set(['/v1/traces', '/v1/metrics']));
      for (const e of collector.exports) expect(e.headers['x-api-key']).toBe('otel-key-7a41');
      expect(JSON.stringify(run.logLines) + run.stderr).not.toContain('otel-key-7a41');
    });

    it('writes the status page objects into the deployed page bucket', async () => {
      expect(status.exitCode, status.stderr).toBe(0);
      const json = JSON.parse(written.json) as { title: string; targets: Array<{ name: string; state: string }> };
      expect(json.title).toBe('Rehearsal status');
      expect(json.targets.map((t) => t.name).sort()).toEqual(['docs', 'legacy', 'rates']);
      // The run above is stamped with the next period boundary, after the writer's window: no data yet.
      for (const t of json.targets) expect(['up', 'degraded', 'down', 'maintenance', 'no_data'], t.name).toContain(t.state);
      expect(written.html).toContain('Rehearsal status');
      // The deployed policy is back, TLS-only statements and all.
      const policy = d.ofType('AWS::S3::BucketPolicy').find((p) => p.resolved.Bucket === pageBucket())!;
      const now = await d.aws.at('us-east-1').s3.send(new GetBucketPolicyCommand({ Bucket: pageBucket() }));
      expect(JSON.parse(now.Policy!)).toEqual(policy.resolved.PolicyDocument);
    });
  });
});
