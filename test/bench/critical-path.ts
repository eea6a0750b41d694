/**
 * How many round trips a run waits for, from when each request started and ended (as a proxy in front
 * of the server saw them). Pure: no I/O.
 *
 * A request that starts only after another ended had to wait for it; requests whose intervals overlap
 * ran in parallel. The run's sequential round trips are the heaviest chain of requests, each starting
 * after the previous one ended. A request that opened its connection first waited for a TCP handshake
 * (and a TLS one on https): `handshakeRtt` adds those round trips to it.
 */

export interface TimedRequest {
  /** What it was, for the chain's description: `server/discover`, `GET`, `DELETE`, … */
  readonly label: string;
  readonly startMs: number;
  readonly endMs: number;
  /** The first request on its connection: the client opened the connection for it. */
  readonly openedConnection: boolean;
}

export interface CriticalPath {
  /** Round trips on the longest chain: requests, plus handshakes of the connections they opened. */
  readonly roundTrips: number;
  /** The requests of that chain, in order. */
  readonly chain: readonly string[];
}

export function criticalPath(requests: readonly TimedRequest[], handshakeRtt = 0): CriticalPath {
  const sorted = [...requests].sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs);
  const best: number[] = [];
  const prev: number[] = [];
  sorted.forEach((r, i) => {
    const own = 1 + (r.openedConnection ? handshakeRtt : 0);
    best[i] = own;
    prev[i] = -1;
    for (let j = 0; j < i; j++) {
      if (sorted[j]!.endMs <= r.startMs && best[j]! + own > best[i]!) {
        best[i] = best[j]! + own;
        prev[i] = j;
      }
    }
  });
  let end = -1;
  best.forEach((b, i) => {
    if (end < 0 || b > best[end]!) end = i;
  });
  const chain: string[] = [];
  for (let i = end; i >= 0; i = prev[i]!) chain.unshift(sorted[i]!.label);
  return { roundTrips: end < 0 ? 0 : best[end]!, chain };
}
