/**
 * A connection pool of our own for Node's built-in fetch. Node exposes no Agent class for it (and the
 * undici package would add ~500 KB to the bundle), but its undici registers the global dispatcher
 * under a well-known symbol, so a sibling of the same class can be made, with the options we need
 * (a connect timeout, a guarded DNS lookup). A custom global dispatcher (a proxy agent) is left in
 * charge: we do not know how to copy it.
 */

/** The part of undici's Agent the canary uses. */
export interface Dispatcher {
  destroy(): Promise<void>;
}

/** A new undici Agent with `options`, or undefined when the global dispatcher is not Node's own Agent. */
export async function siblingAgent(options: object): Promise<Dispatcher | undefined> {
  const key = Symbol.for('undici.globalDispatcher.1');
  const registry = globalThis as unknown as Record<symbol, { constructor: new (opts: object) => Dispatcher } | undefined>;
  // Created lazily by the first fetch; a data: URL creates it without touching the network.
  if (!registry[key])
    await fetch('data:,')
      .then((r) => r.arrayBuffer())
      .catch(() => {});
  const global = registry[key];
  if (!global || global.constructor.name !== 'Agent') return undefined;
  return new global.constructor(options);
}

/** Node's own fetch, as a FetchLike: the base every request of ours goes out through unless a test injects one. */
export const nodeFetch = (url: string | URL, init?: RequestInit): Promise<Response> => fetch(url, init);
