/**
 * RFC 9110 §15.2: "A client MUST be able to parse one or more 1xx responses received prior to a final
 * response, even if the client does not expect one." Node's fetch (undici) skips 102, 103 and the
 * others, but destroys the connection on an unsolicited `100 Continue` ("bad response": it sends no
 * `Expect` header, and fetch refuses to). A server that answered became "cannot connect".
 *
 * Hand-written because no fetch option reaches the parser: the socket's `read()` — how undici's HTTP/1
 * parser takes bytes off the socket — drops every interim response (1xx but 101, which is a protocol
 * switch) at the head of each answer before the parser sees it. Bytes pass untouched once a final
 * status line is seen, until the next request is written.
 */
import type { Socket } from 'node:net';

/** Longest interim response held while waiting for its end: past it the bytes go on as they are. */
const MAX_INTERIM_BYTES = 16 * 1024;
const INTERIM = /^HTTP\/\d\.\d 1(?!01)\d\d[ \r\n]/;
/** A request line, as the client writes one: the next bytes read begin an answer. */
const REQUEST_LINE = /^[A-Z]+ \S+ HTTP\/1\.1\r\n/;
const TEMPLATE = 'HTTP/d.d 1dd';

/** Installs the interim-response filter on one client socket, before its first request is written. */
export function acceptInterimResponses(socket: Socket, onInterim: (statusLine: string) => void = () => {}): void {
  let atHead = true;
  let held: Buffer | null = null;
  const read = socket.read.bind(socket);
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;

  socket.write = ((chunk: unknown, ...rest: unknown[]) => {
    const start = typeof chunk === 'string' ? chunk.slice(0, 512) : Buffer.isBuffer(chunk) ? chunk.subarray(0, 512).toString('latin1') : '';
    if (REQUEST_LINE.test(start)) atHead = true;
    return write(chunk, ...rest);
  }) as Socket['write'];

  socket.read = ((size?: number) => {
    if (!atHead) return read(size);
    for (;;) {
      const chunk = read(size) as Buffer | null;
      if (chunk === null) return null; // held bytes wait for the next 'readable'
      held = held ? Buffer.concat([held, chunk]) : chunk;
      for (;;) {
        const head = held.subarray(0, 16).toString('latin1');
        if (INTERIM.test(head)) {
          const end = endOfHead(held);
          if (end < 0 && held.length <= MAX_INTERIM_BYTES) break; // wait for the rest of it
          if (end >= 0) {
            onInterim(held.subarray(0, end).toString('latin1').split(/\r?\n/, 1)[0]!);
            held = held.subarray(end);
            continue;
          }
        } else if (held.length < TEMPLATE.length + 1 && couldBeInterim(head)) break;
        // A final answer (or not HTTP at all): the parser takes it from here.
        atHead = false;
        const out = held;
        held = null;
        return out;
      }
    }
  }) as Socket['read'];
}

/** The index just past the blank line that ends a response head, or -1. */
function endOfHead(b: Buffer): number {
  const crlf = b.indexOf('\r\n\r\n');
  const lf = b.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return crlf + 4;
  return lf >= 0 ? lf + 2 : -1;
}

/** Whether a short head may still grow into an interim status line (`HTTP/1.1 1`). */
function couldBeInterim(head: string): boolean {
  for (let i = 0; i < head.length && i < TEMPLATE.length; i++) {
    const want = TEMPLATE[i]!;
    if (want === 'd' ? !/\d/.test(head[i]!) : head[i] !== want) return false;
  }
  return true;
}
