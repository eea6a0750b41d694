/**
 * Every config error in the project's words, for every field: a fleet that sets every field is broken
 * one field at a time in every way its schema allows (wrong type, out of range, not in the enum, empty,
 * malformed text, a misspelt or unknown key, a missing required key, a bad record key), and each refusal
 * must name the field's path and contain none of zod's stock phrases. The fields are read from the
 * schema itself (its JSON Schema), and the test fails when the rich fleet below misses one: a field added
 * later is broken here too, without anyone writing a case for it.
 */
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { Fleet, type FleetInput } from '../../../../functions/base/config/schema/fleet.ts';
import { parseFleet } from '../../../../functions/base/config/load/load.ts';
import { describeIssue } from '../../../../functions/base/config/words/issues.ts';
import type { OAuthSecretRef } from '../../../../functions/base/config/schema/oauth.ts';
import { Target } from '../../../../functions/base/config/schema/target.ts';

/** zod's English (its en locale), written out here rather than imported from the code under test. */
const STOCK = [
  'Invalid input',
  'Invalid option',
  'Invalid string',
  'Invalid number',
  'Invalid key',
  'Invalid element',
  'Invalid email',
  'Invalid URL',
  'Invalid discriminator',
  'Too small',
  'Too big',
  'Unrecognized key',
  'expected string',
  'expected number',
  'expected int',
  'expected object',
  'expected array',
  'expected boolean',
  ', received ',
  '>=',
  '<=',
];

const FP = 'd:0123abcd;i:-;o:-;a:89abcdef;r:1';
const everyKind = (name: string) => [
  { email: `${name}@example.com` },
  { url: `https://events.example.com/${name}` },
  { sqsQueueArn: `arn:aws:sqs:us-east-1:111122223333:${name}` },
  { lambdaArn: `arn:aws:lambda:us-east-1:111122223333:function:${name}` },
];
const withKey = (name: string, privateKey: Record<string, string>) => ({
  name,
  url: `https://${name}.example.com/mcp`,
  auth: {
    oauth: {
      clientId: 'canary',
      privateKeyJwt: { privateKey: { ...privateKey, expiresAt: '2099-01-01' } as OAuthSecretRef, alg: 'ES256' as const },
    },
  },
});
const RICH: FleetInput = {
  name: 'acme-canary',
  homeRegion: 'us-east-1',
  probeRegions: ['us-east-1', 'eu-west-1'],
  schedule: 'rate(1 minute)',
  failureThreshold: 3,
  quorum: 1,
  namespace: 'Acme/McpCanary',
  runbookUrl: 'https://runbooks.example.com/mcp',
  notify: { pages: everyKind('pages'), tickets: everyKind('tickets'), canaryOwner: everyKind('owner'), briefs: everyKind('briefs') },
  targets: [
    {
      name: 'rates',
      url: 'https://rates.example.com/mcp',
      headers: { 'X-Trace': 'on' },
      headerSecrets: {
        Authorization: { secretsManager: 'mcp/rates', jsonKey: 'token', prefix: 'Bearer ' },
        'X-Api-Key': { ssmParameter: '/mcp/rates/key', prefix: 'k ' },
      },
      querySecrets: {
        token: { secretsManager: 'mcp/rates-query', jsonKey: 'token', prefix: 't.' },
        sig: { ssmParameter: '/mcp/rates/sig', prefix: 's.' },
      },
      healthUrl: 'https://rates.example.com/health',
      revision: 'auto',
      tool: {
        name: 'get_rate',
        arguments: { pair: 'EURUSD' },
        expectText: 'EUR',
        expectJson: { rate: 1.08 },
        allowUnsafe: false,
        task: false,
      },
      timeoutMs: 5000,
      budgetMs: 20_000,
      degradedMs: 3000,
      retries: 1,
      catalog: { get_rate: FP },
      posture: ['hsts'],
      certWarningDays: 14,
      credentialWarningDays: 7,
      schedule: 'rate(5 minutes)',
      probeRegions: ['us-east-1'],
      runbookUrl: 'https://runbooks.example.com/mcp/rates',
      status: { name: 'Rates', hidden: false },
    },
    {
      name: 'docs',
      url: 'https://docs.example.com/mcp',
      catalog: { byCredential: { 'cred-0123456789ab': { search: FP } } },
      posture: true,
      auth: {
        oauth: {
          clientId: 'canary',
          clientSecret: { secretsManager: 'mcp/docs-oauth', jsonKey: 'secret', expiresAt: '2099-01-01' },
          scopes: ['mcp:read'],
          resource: 'https://docs.example.com/mcp',
          tokenUrl: 'https://auth.example.com/token',
          issuer: 'https://auth.example.com',
          allowPrivateNetwork: false,
        },
      },
    },
    {
      name: 'orders',
      url: 'https://orders.example.com/mcp',
      timeoutMs: 2000,
      flow: [
        {
          id: 'find',
          kind: 'tools/call',
          name: 'find_order',
          arguments: { q: 'latest' },
          expectText: 'ord',
          expectJson: { 'order.total': 1 },
          allowUnsafe: false,
          task: true,
          extract: { orderId: { path: 'order.id' }, word: { regex: 'id=(\\w+)', group: 1 } },
        },
        { id: 'docs', kind: 'resources/list', extract: { uri: { path: 'resources.0.uri' } } },
        { id: 'read', kind: 'resources/read', uri: '${steps.docs.uri}', expectText: 'Orders' },
        { id: 'prompts', kind: 'prompts/list' },
        { id: 'brief', kind: 'prompts/get', name: 'summarize', arguments: { topic: 'order ${steps.find.orderId}' } },
      ],
    },
    {
      name: 'gateway',
      url: 'https://gateway.example.com/mcp',
      timeoutMs: 2000,
      backends: [
        {
          name: 'github',
          prefix: 'gh___',
          tool: { name: 'get_me', arguments: {}, expectText: 'login', expectJson: { login: 'canary' }, allowUnsafe: false, task: false },
          catalog: { get_me: FP },
        },
        { name: 'docs', flow: [{ kind: 'prompts/list' }], catalog: { byCredential: { anonymous: { search: FP } } } },
      ],
    },
    withKey('jwt-sm', { secretsManager: 'mcp/jwt-key', jsonKey: 'pem' }),
    withKey('jwt-ssm', { ssmParameter: '/mcp/jwt/key' }),
    withKey('jwt-env', { env: 'JWT_KEY' }),
    withKey('jwt-file', { file: 'key.pem' }),
    {
      name: 'ssm',
      url: 'https://ssm.example.com/mcp',
      slo: { objective: 99.5, windowDays: 7, burnAlarms: false },
      auth: { oauth: { clientId: 'c', clientSecret: { ssmParameter: '/mcp/oauth', expiresAt: '2099-01-01' } } },
    },
    {
      name: 'env',
      url: 'https://env.example.com/mcp',
      auth: { oauth: { clientId: 'c', clientSecret: { env: 'OAUTH_SECRET', expiresAt: '2099-01-01' } } },
    },
    {
      name: 'file',
      url: 'https://file.example.com/mcp',
      auth: { oauth: { clientId: 'c', clientSecret: { file: 'secret.txt', expiresAt: '2099-01-01' } } },
    },
    {
      name: 'delegated',
      url: 'https://delegated.example.com/mcp',
      auth: {
        authorizationCode: {
          clientId: 'canary',
          scopes: ['mcp:read'],
          store: { secretsManager: 'mcp-canary/delegated/grant' },
          refreshTokenLifetimeDays: 90,
          allowPrivateNetwork: false,
        },
      },
    },
    {
      name: 'delegated-file',
      url: 'https://delegated-file.example.com/mcp',
      auth: { authorizationCode: { clientMetadataUrl: 'https://canary.example.com/oauth/client.json', store: { file: 'grant.json' } } },
    },
  ],
  maintenance: [{ name: 'deploys', schedule: 'cron(0 2 * * SUN)', duration: '2 hours', timezone: 'Europe/Berlin', targets: ['rates'] }],
  proxy: {
    url: 'http://proxy.internal:3128',
    credentials: { secretsManager: 'mcp/proxy', jsonKey: 'basic' },
    noProxy: ['.internal.example.com'],
    vpcs: Object.fromEntries(
      ['us-east-1', 'eu-west-1'].map((r) => [
        r,
        { vpcId: 'vpc-0abc1234', subnetIds: ['subnet-0abc1234'], securityGroupIds: ['sg-0abc1234'] },
      ]),
    ),
  },
  slo: { objective: 99.9, windowDays: 30, burnAlarms: true },
  telemetry: {
    otlp: {
      endpoint: 'https://otel.example.com:4318',
      sigv4: { region: 'eu-west-1', service: 'xray' },
      traces: { endpoint: 'https://otel.example.com/v1/traces', sigv4: { region: 'eu-west-1', service: 'xray' }, enabled: true },
      metrics: { endpoint: 'https://otel.example.com/v1/metrics', sigv4: { region: 'eu-west-1', service: 'monitoring' }, enabled: true },
      headers: {
        'x-api-key': { secretsManager: 'mcp-canary/otel', jsonKey: 'key', prefix: 'Key ' },
        'x-tenant': { ssmParameter: '/mcp-canary/otel/tenant', prefix: 't-' },
      },
      timeoutMs: 2_000,
    },
  },
  statusPage: {
    title: 'Acme MCP status',
    public: true,
    domainName: 'status.example.com',
    certificateArn: 'arn:aws:acm:us-east-1:111122223333:certificate/12345678-1234-1234-1234-123456789012',
  },
};
// Every form of a TLS reference in every field: four targets, the forms rotated.
const TLS_FORMS = [
  { secretsManager: 'mcp/mesh/pem', jsonKey: 'pem' },
  { ssmParameter: '/mcp/mesh/pem' },
  { file: 'mesh.pem' },
  'file:mesh.pem',
];
for (let k = 0; k < TLS_FORMS.length; k++) {
  const form = (n: number) => TLS_FORMS[(k + n) % TLS_FORMS.length]!;
  RICH.targets.push({
    name: `mesh-${k}`,
    url: `https://mesh-${k}.example.com/mcp`,
    tls: { clientCertificate: form(0), clientKey: form(1), passphrase: form(2), ca: form(3) },
  } as FleetInput['targets'][number]);
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Node {
  type?: string | string[];
  properties?: Record<string, Node>;
  required?: string[];
  additionalProperties?: Node | false;
  propertyNames?: Node;
  items?: Node;
  anyOf?: Node[];
  enum?: Json[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  minItems?: number;
  pattern?: string;
  $ref?: string;
}

/** `targets[2].url`, `headers["Bad Name"]`: how a user would find the field. */
function fieldPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const k of path) {
    if (typeof k === 'number') out += `[${k}]`;
    else if (!/^[A-Za-z_$][\w$-]*$/.test(k)) out += `[${JSON.stringify(k)}]`;
    else out += out ? `.${k}` : k;
  }
  return out;
}

const jsType = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const typesOf = (n: Node) => [n.type ?? []].flat().map((t) => (t === 'integer' ? 'number' : t));

/** The option of a union the value takes. */
function optionFor(options: Node[], value: unknown): number {
  return options.findIndex((o) => {
    if (!typesOf(o).includes(jsType(value))) return false;
    if (jsType(value) !== 'object' || !o.properties) return true;
    const keys = Object.keys(value as object);
    return (o.required ?? []).every((k) => keys.includes(k)) && keys.every((k) => k in o.properties!);
  });
}

interface Mutation {
  readonly kind: 'type' | 'range' | 'enum' | 'empty' | 'text' | 'unknown key' | 'missing key' | 'record key';
  /** The field the message must name. */
  readonly field: (string | number)[];
  readonly apply: (root: Json) => void;
  /** Must be refused (a wrong type always is; free text may be fine). */
  readonly mustFail: boolean;
}

function at(root: Json, path: readonly (string | number)[]): { parent: Record<string | number, Json>; key: string | number } {
  let parent = root as Record<string | number, Json>;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, Json>;
  return { parent, key: path.at(-1)! };
}
const set = (path: (string | number)[], v: Json) => (root: Json) => {
  const { parent, key } = at(root, path);
  parent[key] = v;
};

const WRONG: Record<string, Json> = { string: 42, number: 'twelve', boolean: 'yes', object: 'x', array: 'x', null: 1 };

function walk(
  n: Node,
  value: Json,
  path: (string | number)[],
  key: string,
  out: { mutations: Mutation[]; covered: Set<string> },
  /** This object is one form of a union: without a key it may be another form, and valid. */
  aForm = false,
): void {
  if (n.$ref) return; // a JSON value (tool arguments): anything is valid
  if (n.anyOf) {
    const i = optionFor(n.anyOf, value);
    expect(i, `${fieldPath(path)}: the rich fleet's value takes no option of the union`).toBeGreaterThanOrEqual(0);
    out.covered.add(`${key}|${i}`);
    out.mutations.push({ kind: 'type', field: path, apply: set(path, typeof value === 'number' ? 'x' : 12345), mustFail: true });
    return walk(n.anyOf[i]!, value, path, `${key}|${i}`, out, true);
  }
  out.covered.add(key);
  const t = typesOf(n)[0];
  if (t && path.length > 0) out.mutations.push({ kind: 'type', field: path, apply: set(path, WRONG[t]!), mustFail: true });
  if (t === 'number') {
    if (n.minimum !== undefined) out.mutations.push({ kind: 'range', field: path, apply: set(path, n.minimum - 1), mustFail: true });
    if (n.maximum !== undefined && n.maximum < Number.MAX_SAFE_INTEGER)
      out.mutations.push({ kind: 'range', field: path, apply: set(path, n.maximum + 1), mustFail: true });
    if (n.type === 'integer') out.mutations.push({ kind: 'range', field: path, apply: set(path, (value as number) + 0.5), mustFail: true });
  }
  if (t === 'string') {
    if (n.enum) out.mutations.push({ kind: 'enum', field: path, apply: set(path, 'not-one-of-them'), mustFail: true });
    if (n.minLength) out.mutations.push({ kind: 'empty', field: path, apply: set(path, ''), mustFail: true });
    out.mutations.push({
      kind: 'text',
      field: path,
      apply: set(path, 'not valid here !'),
      mustFail: n.pattern !== undefined || n.enum !== undefined,
    });
  }
  if (t === 'array') {
    if (n.minItems) out.mutations.push({ kind: 'empty', field: path, apply: set(path, []), mustFail: true });
    (value as Json[]).forEach((v, i) => walk(n.items!, v, [...path, i], `${key}[]`, out));
  }
  if (t === 'object' && n.properties) {
    const obj = value as Record<string, Json>;
    const first = Object.keys(n.properties)[0]!;
    const typo = `${first}${first.at(-1)}`;
    out.mutations.push({
      kind: 'unknown key',
      field: path,
      apply: (root) => {
        const o = path.length ? (at(root, path).parent[at(root, path).key] as Record<string, Json>) : (root as Record<string, Json>);
        o[typo] = o[first] ?? 'x';
        delete o[first];
      },
      mustFail: true,
    });
    for (const r of n.required ?? []) {
      out.mutations.push({
        kind: 'missing key',
        field: path,
        apply: (root) =>
          delete (path.length ? (at(root, path).parent[at(root, path).key] as Record<string, Json>) : (root as Record<string, Json>))[r],
        mustFail: !aForm,
      });
    }
    for (const [k, v] of Object.entries(obj)) if (n.properties[k]) walk(n.properties[k], v, [...path, k], `${key}.${k}`, out);
  } else if (t === 'object' && n.additionalProperties) {
    const obj = value as Record<string, Json>;
    const some = Object.values(obj)[0] ?? 'x';
    if (n.propertyNames?.pattern || n.propertyNames?.minLength)
      out.mutations.push({
        kind: 'record key',
        field: [...path, 'bad key !'],
        apply: set([...path, 'bad key !'], some),
        mustFail: !!n.propertyNames.pattern,
      });
    for (const [k, v] of Object.entries(obj)) walk(n.additionalProperties, v, [...path, k], `${key}{}`, out);
  }
}

/** Every field and union option of the schema, as `walk` names them. */
function fieldsOf(n: Node, key: string, out: Set<string>): void {
  if (n.$ref) return;
  if (n.anyOf) return n.anyOf.forEach((o, i) => (out.add(`${key}|${i}`), fieldsOf(o, `${key}|${i}`, out)));
  out.add(key);
  if (n.items) fieldsOf(n.items, `${key}[]`, out);
  for (const [k, p] of Object.entries(n.properties ?? {})) fieldsOf(p, `${key}.${k}`, out);
  if (n.additionalProperties) fieldsOf(n.additionalProperties, `${key}{}`, out);
}

const schema = z.toJSONSchema(Fleet, { io: 'input', unrepresentable: 'any' }) as Node;
const found = { mutations: [] as Mutation[], covered: new Set<string>() };
walk(schema, RICH as Json, [], '', found);
// A fleet has one proxy: its other credentials form (SSM) is covered by a second fleet, whose mutations are not repeated.
const SSM_PROXY = { ...RICH, proxy: { ...RICH.proxy!, credentials: { ssmParameter: '/mcp/proxy' } } };
const ssmProxy = { mutations: [] as Mutation[], covered: new Set<string>() };
walk(schema, SSM_PROXY as Json, [], '', ssmProxy);
for (const k of ssmProxy.covered) found.covered.add(k);

function refusal(m: Mutation): string | null {
  const config = structuredClone(RICH) as Json;
  m.apply(config);
  try {
    parseFleet(config);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

describe('every config error names its field, in our words', () => {
  it('starts from a fleet that sets every field and every form of every union', () => {
    expect(() => parseFleet(RICH)).not.toThrow();
    const all = new Set<string>();
    fieldsOf(schema, '', all);
    const missing = [...all].filter((k) => !found.covered.has(k));
    expect(missing, 'fields the rich fleet in this test does not set: add them').toEqual([]);
  });

  it(`breaks each field every way its schema allows (${found.mutations.length} configs)`, () => {
    const refused = found.mutations.map((m) => ({ m, message: refusal(m) }));
    if (process.env.DUMP_MESSAGES) for (const r of refused) console.log(`${r.m.kind}\t${r.message}`);
    for (const { m, message } of refused) {
      const what = `${m.kind} at ${fieldPath(m.field) || '(root)'}`;
      if (message === null) {
        expect(m.mustFail, `${what} was accepted`).toBe(false);
        continue;
      }
      // Target names are added after `targets[i]` (`targets[0] ("rates").url`): read past them.
      const plain = message.replace(/ \("[^"]*"\)/g, '');
      expect(plain, what).toContain(fieldPath(m.field));
      expect(message.split('\n'), what).toHaveLength(1);
      for (const phrase of STOCK) expect(message, `${what}: zod's own words`).not.toContain(phrase);
      if (m.kind === 'unknown key') expect(message, what).toMatch(/did you mean "/);
    }
    // The set is broad: most of it is refused, and every kind of wrongness is exercised.
    expect(refused.filter((r) => r.message !== null).length).toBeGreaterThan(150);
    expect(new Set(found.mutations.map((m) => m.kind)).size).toBe(8);
  });

  it("rewrites zod's words even for a parse that did not ask for ours (the run's event)", () => {
    const result = Target.safeParse({ name: 'a', url: 'https://a.example.com', timeoutMs: 0, retries: 'x', toool: 1, revision: 'v1' });
    expect(result.success).toBe(false);
    const lines = result.error!.issues.map((i) => describeIssue(i, 'targets[0]'));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) {
      expect(line).toMatch(/^targets\[0\]/);
      for (const phrase of STOCK) expect(line).not.toContain(phrase);
    }
  });
});
