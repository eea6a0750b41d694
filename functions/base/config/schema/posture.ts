/** The `posture` a target opts into: `true` (every check) or the names of the checks to run. */
// The namespace import, not `{ z }`: esbuild then keeps only what is used.
import * as z from 'zod';

/** The checks, in the order they are reported. */
export const PostureCheck = {
  /** A request with a foreign `Origin` is refused with 403 (DNS rebinding). */
  origin: 'origin',
  /** An unknown protocol version is refused: -32022 with the supported list (2026-07-28), 400 (2025-11-25). */
  protocolVersion: 'protocol-version',
  /** 2026-07-28: GET and DELETE on the endpoint answer 405 and mint no Mcp-Session-Id. */
  getDelete: 'get-delete',
  /** No credentials → 401; for a Bearer target, WWW-Authenticate names resource_metadata and it resolves. */
  unauthenticated: 'unauthenticated',
  /** https targets send Strict-Transport-Security; the certificate's days left are recorded. */
  hsts: 'hsts',
  /** Which auth works with no person at hand (client credentials: the MCP extension or the grant), and plainly when none does. */
  unattendedAuth: 'unattended-auth',
} as const;
export type PostureCheck = (typeof PostureCheck)[keyof typeof PostureCheck];
export const postureChecks: readonly PostureCheck[] = Object.values(PostureCheck);

export const PostureSetting = z.union(
  [
    z.boolean(),
    z
      .array(
        z.enum(postureChecks as [PostureCheck, ...PostureCheck[]], { error: `must name a posture check: ${postureChecks.join(', ')}` }),
      )
      .min(1, 'is empty: list checks, or write posture: true for all'),
  ],
  { error: `must be true, false or a list of checks (${postureChecks.join(', ')})` },
);
export type PostureSetting = z.infer<typeof PostureSetting>;

/** The checks a setting selects, in report order. */
export function selectedChecks(setting: PostureSetting | undefined): PostureCheck[] {
  if (setting === undefined || setting === false) return [];
  if (setting === true) return [...postureChecks];
  return postureChecks.filter((c) => setting.includes(c));
}
