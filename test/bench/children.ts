/** Child processes of the bench: the server process (`servers.ts`), and timed one-shot commands. */
import { startServerProcess as start, type ServerProcess } from '../helpers/child.ts';

export { runToEnd, type Finished } from '../helpers/child.ts';

export interface ServerUrls {
  readonly modern: string;
  readonly legacy: string;
}

/** Starts `servers.ts` in its own Node process and reads its URLs. */
export function startServerProcess(): Promise<ServerProcess<ServerUrls>> {
  return start<ServerUrls>(new URL('./servers.ts', import.meta.url));
}
