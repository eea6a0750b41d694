/**
 * Well-known locations (RFC 8615) the canary reads beside the MCP endpoint. One source: the card read,
 * the trace (a card GET is its own step, not part of the step it fell after) and the demo's servers.
 */

/** SEP-2127's MCP Server Card, at the origin's root. */
export const SERVER_CARD_PATH = '/.well-known/mcp/server-card';
