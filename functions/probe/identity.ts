/**
 * Who the canary says it is, from one source: package.json's version is what `--version` prints, the
 * `clientInfo` every server sees, and the User-Agent of every request (a server's logs can tell the
 * canary's traffic, and its version, from an agent's).
 */
import pkg from '../../package.json' with { type: 'json' };

export const CANARY_VERSION: string = pkg.version;
export const CLIENT_INFO = { name: 'mcp-canary', version: CANARY_VERSION } as const;
export const USER_AGENT = `mcp-canary/${CANARY_VERSION}`;
