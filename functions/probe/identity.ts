/**
 * Who the canary says it is, from one source (functions/version.ts, package.json's version): what
 * `--version` prints, the `clientInfo` every server sees, and the User-Agent the trace middleware puts
 * on every request (trace-context.ts).
 */
import { USER_AGENT, VERSION } from '../version.ts';

export const CANARY_VERSION: string = VERSION;
export const CLIENT_INFO = { name: 'mcp-canary', version: CANARY_VERSION } as const;
export { USER_AGENT };
