import { defineConfig } from 'vitest/config';

/**
 * Three lanes, each a folder, so a test's place says its lane and there is no list to keep; `npm test`
 * runs all three, as CI does. Under each, `<room>` mirrors functions/ and infra/ (test/unit/engine/probe/
 * for functions/engine/probe/); every helper lives in test/helpers/.
 * - `test/unit/`: Node and loopback servers only.
 * - `test/integration/`: needs a tool beside Node (moto_server, cfn-lint, openssl, python3), or is slow.
 * - `test/release/`: the release rehearsals: a git clone and `npm ci`, `npm pack` and an install, other
 *   platforms' installs, the bundled Lambdas, synths with bundling and cdk-nag, the 5,000 × 5 synth, the
 *   deploy into moto, real product servers, the pages in Chromium.
 * `npm run test:fast` is the inner loop: test/unit/ and the engine's own integration tests
 * (test/integration/engine/: the hostile matrix, the conformance scenarios, the failure classes).
 */
export default defineConfig({
  test: {
    // Real sockets and real servers: generous per-test timeout, but assertions never depend on wall time.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The CLI bundled once per run, for every test that spawns the command (test/helpers/cli-bin.ts).
    globalSetup: ['./test/helpers/global-setup.ts'],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    projects: [
      // isolate: false lets the unit files share a worker's module cache: aws-cdk-lib, the SDK and zod load
      // once per worker, not once per file (56 s → 22 s of CPU). It holds because these files stub nothing
      // global (no vi.mock, no vi.stubEnv, no console or process.env changes); a file that must, belongs in
      // the integration lane, which stays isolated.
      { extends: true, test: { name: 'unit', isolate: false, include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'] } },
      // A release hook removes whole node_modules trees (a clone, a packed install, other platforms'):
      // on a busy 2-core machine that alone can pass a minute.
      { extends: true, test: { name: 'release', include: ['test/release/**/*.test.ts'], hookTimeout: 240_000 } },
    ],
  },
});
