/**
 * Who the canary says it is, from one source (package.json's version, bundled into the Lambda by
 * esbuild): what `--version` prints, the `clientInfo` every server sees, and the User-Agent the trace
 * middleware puts on every request (net/trace-context.ts).
 */
import pkg from '../../../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;

export const CLIENT_INFO = { name: 'mcp-canary', version: VERSION } as const;

/** Marks synthetic traffic so a server can filter the canary out of its own analytics. */
export const USER_AGENT = `mcp-canary/${VERSION}`;
