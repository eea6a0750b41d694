/**
 * The parts of undici a proxy or a target's own TLS needs. The run Lambda carries this as a file of its
 * own beside index.mjs (infra/constructs/bundle.ts), loaded only by a target that needs it (reach.ts):
 * undici is about half a megabyte, and a fleet without a proxy or private TLS must not parse it on every
 * cold start.
 */
export { Agent, EnvHttpProxyAgent, fetch, Pool } from 'undici';
