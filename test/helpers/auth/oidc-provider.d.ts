// oidc-provider ships no types (and @types/oidc-provider is not installed): the little the tests use.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
  export const errors: { InvalidTarget: new (description?: string) => Error };
}
