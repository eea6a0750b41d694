/** The canary's own version, from package.json (bundled into the Lambda by esbuild). */
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;

/** Marks synthetic traffic so a server can filter the canary out of its own analytics. */
export const USER_AGENT = `mcp-canary/${VERSION}`;
