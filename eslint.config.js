// Lint: the recommended JS and TypeScript rules, the few that keep the canary honest, and the layers.
import { posix } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Who may import whom: one row per room, read by the blocks at the end of this file and by
 * test/unit/package/layers.test.ts, which builds the import graph from the source (type-only imports
 * too) and checks it against these same rows, with no exceptions. Bottom up:
 * - common: the shared words, importing nothing of ours;
 * - config and net: every schema, and the only owner of fetch, sockets and TLS;
 * - the features (probe, auth, catalog, posture, publish, secrets), which never import each other;
 * - judge: runs one target, the only room that knows every feature;
 * - the entry points (run, brief, cli, demo, index.ts);
 * - infra: common and config only, naming the Lambda handlers by path as bundle entries.
 * A room is a folder, flat (a folder inside it is a room of its own) or one file. `outside` lists the
 * files beyond functions/ and infra/ a room may read.
 */
export const LAYERS = {
  'functions/common': {
    may: [],
    outside: ['package.json'],
    is: 'the shared words: verdict, errors, redaction, trace ids, names, the alarm and run-record contracts',
  },
  'functions/config': { may: ['functions/common'], is: 'every schema, loading, the environment, secret references' },
  'functions/net': { may: ['functions/common'], is: 'fetch, sockets, TLS and the record of each exchange' },
  'functions/probe': {
    may: ['functions/common', 'functions/config', 'functions/net'],
    is: 'the MCP steps of one attempt, and their classifier',
  },
  'functions/auth': { may: ['functions/common', 'functions/config', 'functions/net'], is: 'the OAuth token step and the expiry warnings' },
  'functions/catalog': { may: ['functions/common', 'functions/config'], is: 'tool-catalog fingerprints and drift' },
  'functions/posture': { may: ['functions/common', 'functions/config', 'functions/net'], is: 'the security posture checks' },
  'functions/publish': { may: ['functions/common', 'functions/config'], is: 'PutMetricData to the home region' },
  'functions/secrets': {
    may: ['functions/common', 'functions/config'],
    is: 'reads the credentials a target references (Secrets Manager, SSM) with the AWS identity at hand',
  },
  'functions/history': {
    may: ['functions/common', 'functions/config'],
    is: "a fleet's history from CloudWatch (metrics, alarm history) as timelines by the paging rule, and their figures",
  },
  'functions/telemetry': {
    may: ['functions/common', 'functions/config', 'functions/net'],
    is: 'the runs as OpenTelemetry traces and metrics over OTLP/HTTP, loaded only when configured',
  },
  'functions/judge': {
    may: [
      'functions/common',
      'functions/config',
      'functions/net',
      'functions/probe',
      'functions/auth',
      'functions/catalog',
      'functions/posture',
    ],
    is: 'runs one target: the run context, the token step, the attempts, the warnings',
  },
  'functions/run': {
    may: ['functions/common', 'functions/config', 'functions/judge', 'functions/publish', 'functions/secrets', 'functions/telemetry'],
    is: 'the scheduled Lambda',
  },
  'functions/brief': { may: ['functions/common', 'functions/config'], is: 'the alarm brief Lambda' },
  'functions/refresh': {
    may: ['functions/common', 'functions/config', 'functions/auth', 'functions/secrets'],
    is: 'the delegated-OAuth refresher Lambda: the one writer of each grant, publishing access tokens to the probe regions',
  },
  'functions/status': {
    may: ['functions/common', 'functions/config', 'functions/history'],
    is: 'the status page Lambda: the snapshot, its HTML and JSON, written to S3',
  },
  'functions/report': {
    may: ['functions/common', 'functions/config', 'functions/history'],
    is: 'mcp-canary report: the figures per target as text, JSON and one self-contained HTML page',
  },
  'functions/cli': {
    may: [
      'functions/common',
      'functions/config',
      'functions/judge',
      'functions/secrets',
      'functions/auth',
      'functions/history',
      'functions/report',
      'functions/telemetry',
    ],
    is: 'mcp-canary check, snapshot, login and report',
  },
  'functions/demo': { may: ['functions/common', 'functions/config', 'functions/judge', 'functions/cli'], is: 'npm start and its servers' },
  'functions/index.ts': { may: ['functions/common', 'functions/config', 'functions/judge'], is: "the package's exports (mcp-canary)" },
  'infra/plan': { may: ['functions/common', 'functions/config'], is: 'names, placement and checks of a fleet, before any construct' },
  'infra/quotas': { may: ['functions/common'], is: "AWS's quotas checked at synth" },
  'infra/constructs': { may: ['functions/common', 'functions/config', 'infra/plan'], is: 'the stacks and constructs' },
  infra: {
    may: ['functions/common', 'functions/config', 'infra/plan', 'infra/quotas', 'infra/constructs'],
    outside: ['mcp-canary.config.ts'],
    is: 'the CDK app, McpCanaryFleet and mcp-canary/cdk',
  },
};

/** Only functions/net/ opens sockets or calls fetch (demo/ is the servers, not the canary). */
export const NET_ONLY = {
  modules: /^(node:(net|tls|dns|http|https|http2|dgram|diagnostics_channel)(\/|$)|undici(\/|$))/,
  owners: ['functions/net', 'functions/demo'],
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
        message: 'Sockets, TLS and fetch belong to functions/net/: take the run context’s fetch, or a function of net/.',
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
                { name: 'fetch', message: 'fetch belongs to functions/net/: use the run context’s fetch.' },
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
