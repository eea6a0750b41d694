/**
 * The canary sends every access token as `Authorization: Bearer`. A token of another type (DPoP,
 * RFC 9449: bound to a key whose proof must go with each request) would be refused by the MCP server
 * on every probe and read as the endpoint's `auth`: it is refused where it arrives, on every path
 * (client credentials, the login's token exchange, the refresher), with what to do. Never the token.
 */

/** Words for a token answer whose `token_type` is not Bearer, or null when it is Bearer. */
export function notBearer(tokenType: string, issuedBy: string, clientId?: string): string | null {
  if (tokenType.toLowerCase() === 'bearer') return null;
  const dpop = tokenType.toLowerCase() === 'dpop';
  // token_type is case-insensitive (RFC 6749 §5.1); an unknown one is shown cut short and printable.
  const type = dpop ? 'DPoP' : tokenType.slice(0, 40).replace(/[^\x21-\x7e]/g, '?');
  const client = clientId ? ` ${clientId}` : '';
  const bound = dpop ? 'does not support DPoP-bound tokens (RFC 9449)' : `does not support ${type} tokens`;
  return `${issuedBy} issued a ${type} token: the canary sends Bearer tokens only and ${bound}. Have the authorization server issue Bearer tokens to the canary's client${client}${dpop ? ' (turn off DPoP binding for it)' : ''}`;
}

/** The OAuth errors of a server that demands a DPoP proof with each token request (RFC 9449 §5, §8). */
const DPOP_DEMANDED = new Set(['invalid_dpop_proof', 'use_dpop_nonce']);

/** Words for a token request refused because it carried no DPoP proof, or null for any other error. */
export function dpopDemanded(code: string, refusedBy: string, clientId?: string): string | null {
  if (!DPOP_DEMANDED.has(code)) return null;
  const client = clientId ? ` ${clientId}` : '';
  return `${refusedBy} demands a DPoP proof (${code}): the canary does not support DPoP-bound tokens (RFC 9449). Have the authorization server issue Bearer tokens to the canary's client${client} (turn off DPoP binding for it)`;
}
