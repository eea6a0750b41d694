import { defineConfig } from 'vitest/config';

/**
 * Two lanes, both run by `npm test`, each a folder: a test's place says which lane it is in, no list to
 * keep. `test/unit/<room>/` (vitest --project unit, `npm run test:unit`) is the fast one: Node and
 * loopback servers only. `test/integration/<room>/` holds the tests that need a tool beside Node
 * (moto_server, cfn-lint, openssl, python3, unshare, chromium) or the npm registry, and those slow by
 * design. `<room>` mirrors functions/ and infra/; every helper lives in test/helpers/.
 */
export default defineConfig({
  test: {
    // Real sockets and real servers: generous per-test timeout, but assertions never depend on wall time.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    projects: [
      // isolate: false lets the unit files share a worker's module cache: aws-cdk-lib, the SDK and zod load
      // once per worker, not once per file (56 s → 22 s of CPU). It holds because these files stub nothing
      // global (no vi.mock, no vi.stubEnv, no console or process.env changes); a file that must, belongs in
      // the integration lane, which stays isolated.
      { extends: true, test: { name: 'unit', isolate: false, include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'] } },
    ],
  },
});
