// Lint: the recommended JS and TypeScript rules, the few that keep the canary honest, and the layers.
import { posix } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Who may import whom: one row per room, read by the blocks at the end of this file, by
 * test/unit/package/layers.test.ts (which builds the import graph from the source, type-only imports too,
 * and checks it against these same rows, with no exceptions) and by scripts/docs.ts, which writes the room
 * map in CONTRIBUTING.md from them. A room is a folder, flat (a folder inside it is a room of its own) or
 * one file; `outside` lists the files beyond functions/ and infra/ a room may read. The floors are the
 * folders of functions/ (FLOORS, below): a room imports the floors beneath its own, and within a floor only
 * what its row names.
 */
const COMMON = 'functions/base/common';
const WORDS = 'functions/base/config/words';
const AWS = 'functions/base/config/aws';
const SCHEMA = 'functions/base/config/schema';
const LOAD = 'functions/base/config/load';
const ENV = 'functions/base/config/env';
const NET = 'functions/base/net';

export const LAYERS = {
  [COMMON]: {
    may: [],
    outside: ['package.json'],
    is: 'the shared words: verdict, the error family and the AWS error boundary, redaction, trace ids, names, the alarm and run-record contracts',
  },
  [WORDS]: {
    may: [COMMON],
    is: "config errors in the project's words: zod's issues as one line naming the field and the fix, did you mean",
  },
  [AWS]: {
    may: [COMMON, WORDS],
    is: "AWS's formats as its services check them: regions, ARNs, names, cron, schedule expressions, partitions",
  },
  [SCHEMA]: {
    may: [COMMON, WORDS, AWS],
    is: 'every schema: a target, the fleet, OAuth, TLS, proxy, SLO, status page, telemetry, maintenance',
  },
  [LOAD]: {
    may: [COMMON, WORDS, AWS, SCHEMA],
    is: 'reading a config file (JSON or a TS module, errors placed by line and column) and the secrets and TLS material it references',
  },
  [ENV]: { may: [COMMON, WORDS, AWS, SCHEMA], is: "each Lambda's environment, read once, a missing variable named" },
  [NET]: { may: [COMMON], is: 'fetch, sockets, TLS, proxies, the SSRF guard and the record of each exchange' },
  'functions/engine/probe': { may: [COMMON, SCHEMA, NET], is: 'the MCP steps of one attempt, and their classifier' },
  'functions/engine/auth': {
    may: [COMMON, SCHEMA, LOAD, NET],
    is: 'the OAuth token step, the expiry warnings, and delegated OAuth (login, the grant, its refresh)',
  },
  'functions/engine/catalog': { may: [COMMON, SCHEMA], is: 'tool-catalog fingerprints and drift' },
  'functions/engine/posture': { may: [COMMON, SCHEMA, NET], is: 'the security posture checks' },
  'functions/engine/card': {
    may: [COMMON, SCHEMA, NET],
    is: 'the MCP Server Card (SEP-2127): read with its ETag, compared with the handshake and with itself',
  },
  'functions/engine/judge': {
    may: [
      COMMON,
      SCHEMA,
      LOAD,
      NET,
      'functions/engine/probe',
      'functions/engine/auth',
      'functions/engine/catalog',
      'functions/engine/posture',
      'functions/engine/card',
    ],
    is: 'runs one target: the run context, the token step, the attempts, the warnings; the only room that knows every engine room',
  },
  'functions/io/publish': { may: [COMMON, SCHEMA], is: 'PutMetricData to the home region' },
  'functions/io/secrets': {
    may: [COMMON, SCHEMA, LOAD],
    is: 'reads the credentials a target references (Secrets Manager, SSM) with the AWS identity at hand',
  },
  'functions/io/history': {
    may: [COMMON, AWS, SCHEMA],
    is: "a fleet's history from CloudWatch (metrics, alarm history) as timelines by the paging rule, and their figures",
  },
  'functions/io/telemetry': {
    may: [COMMON, SCHEMA, NET],
    is: 'the runs as OpenTelemetry traces and metrics over OTLP/HTTP, loaded only when configured',
  },
  'functions/lambdas/run': {
    may: [
      COMMON,
      WORDS,
      SCHEMA,
      LOAD,
      ENV,
      'functions/engine/judge',
      'functions/io/publish',
      'functions/io/secrets',
      'functions/io/telemetry',
    ],
    is: 'the scheduled run: judges its targets, publishes each verdict, keeps the run ledger',
  },
  'functions/lambdas/brief': {
    may: [COMMON, SCHEMA, ENV],
    is: 'the alarm brief: reads the run records behind an alarm and publishes the brief',
  },
  'functions/lambdas/refresh': {
    may: [COMMON, SCHEMA, ENV, 'functions/engine/auth', 'functions/io/secrets'],
    is: 'the delegated-OAuth refresher: the one writer of each grant, publishing access tokens to the probe regions',
  },
  'functions/lambdas/status': {
    may: [COMMON, SCHEMA, ENV, 'functions/io/history'],
    is: 'the status page: the snapshot, its HTML and JSON, written to S3',
  },
  'functions/cli/report': {
    may: [COMMON, SCHEMA, 'functions/io/history'],
    is: "mcp-canary report's result: the figures per target as text, JSON and one self-contained HTML page",
  },
  'functions/cli': {
    may: [
      COMMON,
      WORDS,
      SCHEMA,
      LOAD,
      'functions/engine/judge',
      'functions/engine/auth',
      'functions/io/secrets',
      'functions/io/history',
      'functions/cli/report',
    ],
    is: 'mcp-canary check, init, snapshot, login and report; every check flag declared once (flags.ts)',
  },
  'functions/demo': {
    may: [COMMON, SCHEMA, 'functions/engine/judge', 'functions/cli'],
    is: 'npm start, and the embedded MCP servers the tests use too',
  },
  'functions/index.ts': { may: [COMMON, SCHEMA, 'functions/engine/judge'], is: "the package's exports (mcp-canary)" },
  'infra/plan': {
    may: [COMMON, AWS, SCHEMA, LOAD],
    is: 'names, placement, secret scopes, stack splits and checks of a fleet, before any construct',
  },
  'infra/quotas': {
    may: [COMMON, 'infra/plan'],
    is: "AWS's quotas checked at synth: the templates against template quotas, the fleet's plan against runtime quotas",
  },
  'infra/constructs': { may: [COMMON, SCHEMA, ENV, 'infra/plan'], is: 'the stacks and constructs' },
  infra: {
    may: [COMMON, AWS, SCHEMA, LOAD, 'infra/plan', 'infra/quotas', 'infra/constructs'],
    outside: ['mcp-canary.config.ts'],
    is: 'the CDK app (app.ts), McpCanaryFleet (fleet.ts) and mcp-canary/cdk (index.ts); the Lambdas are named by path, as bundle entries',
  },
};

/**
 * The floors, bottom up: the folders of functions/ (and infra/, beside them), each in a few words. A
 * newcomer reads them from `ls functions`; CONTRIBUTING.md's room map is written from this and LAYERS.
 */
export const FLOORS = {
  'functions/base': 'the floor every room stands on: the shared words, the config and the wire',
  'functions/engine': 'judges one endpoint the way an agent uses it; no AWS',
  'functions/io': 'what the canary reads and writes beyond the endpoint: metrics, credentials, history, telemetry',
  'functions/lambdas': 'the four Lambda functions, each a thin handler around its run',
  'functions/cli': 'the mcp-canary command',
  'functions/demo': 'npm start',
  'functions/index.ts': 'the package (mcp-canary)',
  infra: 'the CDK app and McpCanaryFleet (mcp-canary/cdk), which name the Lambdas by path',
};

/** Only functions/base/net/ opens sockets or calls fetch (demo/ is the servers, not the canary). */
export const NET_ONLY = {
  modules: /^(node:(net|tls|dns|http|https|http2|dgram|diagnostics_channel)(\/|$)|undici(\/|$))/,
  owners: ['functions/base/net', 'functions/demo'],
};

const escapeRegex = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const folderOf = (room) => (room.endsWith('.ts') ? posix.dirname(room) : room);

/** One `no-restricted-imports` block per room: the rooms its row does not name, by the path its files write. */
function layerBlocks() {
  return Object.entries(LAYERS).map(([room, { may }]) => {
    const forbidden = Object.keys(LAYERS).filter((other) => other !== room && !may.includes(other));
    const patterns = forbidden.map((other) => {
      const rel = posix.relative(folderOf(room), other);
      const written = rel.startsWith('..') ? rel : `./${rel}`;
      return {
        // A room is flat, so its files are exactly `<path to it>/<file>`: a parent room's pattern
        // never catches what only passes through it (infra/plan's `../../functions/…`).
        regex: `^${escapeRegex(written)}${other.endsWith('.ts') ? '$' : '/[^/]+$'}`,
        message: `${room} may import ${may.join(', ') || 'nothing of ours'}; not ${other} (the rule table in eslint.config.js).`,
      };
    });
    if (room.startsWith('functions/') && !NET_ONLY.owners.includes(room)) {
      patterns.push({
        regex: NET_ONLY.modules.source,
        message: 'Sockets, TLS and fetch belong to functions/base/net/: take the run context’s fetch, or a function of net/.',
      });
    }
    const owner = NET_ONLY.owners.includes(room) || !room.startsWith('functions/');
    return {
      files: [room.endsWith('.ts') ? room : `${room}/*.ts`],
      rules: {
        'no-restricted-imports': ['error', { patterns }],
        ...(owner
          ? {}
          : {
              'no-restricted-globals': [
                'error',
                { name: 'fetch', message: 'fetch belongs to functions/base/net/: use the run context’s fetch.' },
              ],
            }),
      },
    };
  });
}

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.scratch/', 'coverage/', '.bench/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // stdout belongs to the CLI's result (and --json to exactly one Verdict): write on purpose, not by accident.
      'no-console': ['error', { allow: ['error', 'warn'] }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['test/**', 'infra/**'],
    rules: { 'no-console': 'off' },
  },
  ...layerBlocks(),
);
