/**
 * Reads the response to one JSON-RPC request off its answer's body as the body streams past, and passes
 * every byte on unchanged: when the response arrived (an event stream may send it long after its headers,
 * and keep going after it), and how the operation ended — a JSON-RPC error's code, a tool's `isError`, or
 * a body that never carried the response. The MCP conventions time an operation "until the response is
 * received" and name its `error.type` from the response, which the headers alone cannot tell.
 *
 * Hand-written because the SDK reads the body but reports neither its timing nor a tool's `isError` to a
 * fetch middleware; the event-stream framing is the wire's own (`SseScanner`), so both read alike.
 */
import { SseScanner } from '../../base/net/answer.ts';
import { OTHER } from './semconv.ts';

/** What the body said about the request; `problem` when it never carried the response. */
export interface AnswerOutcome {
  /** Wall ms: when the response arrived, or when the body ended without it. */
  readonly at: number;
  readonly rpcError?: string;
  readonly toolError?: true;
  readonly problem?: 'no_answer' | 'wrong_id' | 'truncated' | 'too_large' | 'timeout';
}

export interface WatchOptions {
  readonly id: string | number;
  readonly sse: boolean;
  /** A 2xx answer: one that ends without the response failed. (A 4xx's body is read for a JSON-RPC error only.) */
  readonly ok: boolean;
  /** `isError` is a tool result's: looked for on a `tools/call` only. */
  readonly toolCall: boolean;
  /** The request's signal: a body cut by it was cut by a timeout, not by the server. */
  readonly signal: AbortSignal | null | undefined;
  readonly maxBytes: number;
  readonly now: () => number;
  /** Called once, with the first thing known for certain. */
  readonly done: (o: AnswerOutcome) => void;
}

export function watchAnswer(source: ReadableStream<Uint8Array>, o: WatchOptions): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const scanner = o.sse ? new SseScanner() : null;
  const decoder = new TextDecoder();
  const kept: Uint8Array[] = [];
  let bytes = 0;
  let settled = false;
  const settle = (outcome: Omit<AnswerOutcome, 'at'>) => {
    if (settled) return;
    settled = true;
    kept.length = 0;
    o.done({ at: o.now(), ...outcome });
  };
  const cut = () => (o.signal?.aborted ? 'timeout' : undefined);
  const failed = (problem: NonNullable<AnswerOutcome['problem']>) => settle(o.ok || problem === 'timeout' ? { problem } : {});

  /** One parsed message (or batch): settles when it answers the request, or answers another one. */
  const read = (msg: unknown): void => {
    if (Array.isArray(msg)) return msg.forEach(read);
    if (settled || msg === null || typeof msg !== 'object') return;
    const m = msg as { id?: unknown; method?: unknown; result?: unknown; error?: unknown };
    // A notification or a server's request riding the stream: not the answer.
    if (typeof m.method === 'string' || !('id' in m)) return;
    // `null` is the id of an error about a request the server could not read: it answers ours.
    if (m.id !== null && m.id !== o.id) return failed('wrong_id');
    if ('error' in m) {
      const code = (m.error as { code?: unknown } | null)?.code;
      return settle({ rpcError: Number.isInteger(code) ? String(code) : OTHER });
    }
    const isError = o.toolCall && (m.result as { isError?: unknown } | null)?.isError === true;
    settle(isError ? { toolError: true } : {});
  };
  const parse = (text: string): void => {
    try {
      read(JSON.parse(text));
    } catch {
      // not JSON: not the response (the SDK reports it in its own words)
    }
  };

  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (e) {
        failed(cut() ?? 'truncated');
        return controller.error(e);
      }
      if (r.done) {
        if (!settled && !scanner) parse(Buffer.concat(kept).toString('utf8'));
        failed('no_answer');
        return controller.close();
      }
      if (!settled) {
        bytes += r.value.byteLength;
        if (bytes > o.maxBytes) failed('too_large');
        else if (scanner) for (const data of scanner.push(decoder.decode(r.value, { stream: true }))) parse(data);
        else kept.push(r.value);
      }
      controller.enqueue(r.value);
    },
    cancel: (reason) => {
      // The reader gave up before the response: the wire refused the answer, or a timeout ended the request.
      failed(cut() ?? 'no_answer');
      return reader.cancel(reason);
    },
  });
}
