/**
 * The body of one answer as the SDK reads it, checked on the way (see `inspectBody`). Split from the
 * wire, which owns the request; this owns what comes back.
 */
import { oneLine } from '../common/redact.ts';
import { judgeJsonBody, judgeMessage, SseScanner, type AnswerFacts, type RequestId } from './answer.ts';
import { errorCode, type Exchange, type WireErrorKind } from './exchange.ts';

/** A failed answer's body is read for the server's own words up to this many bytes. */
const MAX_WORDS_BYTES = 64 * 1024;

/** pass: untouched; json/sse: judged as the answer to a request; words: a failed answer, read for its words. */
export type BodyMode = 'pass' | 'json' | 'sse' | 'words';

export interface BodyContext {
  readonly exchange: Exchange;
  readonly mode: BodyMode;
  readonly id: RequestId | undefined;
  readonly maxBytes: number;
  readonly signal: AbortSignal;
  readonly why: (e: unknown) => WireErrorKind;
  /** Whether an event stream that ends after an event id may be resumed (SEP-1699). */
  readonly resumable: boolean;
}

/**
 * The body as the SDK reads it, checked on the way: the byte cap; a JSON answer held whole and judged
 * (right id, exactly one of result and error); an event stream judged event by event; a failed
 * answer's words kept for the detail. A stream that breaks after the headers is recorded as cut short,
 * not as "cannot connect".
 */
export function inspectBody(source: ReadableStream<Uint8Array>, c: BodyContext): ReadableStream<Uint8Array> {
  const { exchange, mode, id } = c;
  const reader = source.getReader();
  const decoder = new TextDecoder();
  const facts: AnswerFacts = { rpcError: null, supportedVersions: null };
  const scanner = mode === 'sse' ? new SseScanner() : null;
  const kept: Uint8Array[] = [];
  let answered = false;
  let complete = false;

  // A timeout that strikes while the body streams is recorded here; an abort after the body was read
  // whole (the SDK closing the request) is no failure.
  c.signal.addEventListener(
    'abort',
    () => {
      if (!complete) exchange.error ??= { kind: c.why(c.signal.reason), code: 'aborted while reading the body' };
    },
    { once: true },
  );

  const keepFacts = () => {
    exchange.rpcError = facts.rpcError ?? exchange.rpcError;
    if (facts.supportedVersions) exchange.supportedVersions = facts.supportedVersions;
    if (facts.toolNames) exchange.toolNames = facts.toolNames;
    if (facts.serverRequests) exchange.serverRequests = facts.serverRequests;
    if (facts.resultType) exchange.resultType = facts.resultType;
    if (facts.inputRequests) exchange.inputRequests = facts.inputRequests;
  };
  // A tool's answer is kept as text: JSON.parse rounds integers beyond 2^53, and expectJson compares exactly.
  const keepsAnswer = exchange.rpcMethod === 'tools/call';
  // The SDK ignores an event stream that errors or ends without the answer, and waits for its
  // timeout; a synthetic JSON-RPC error answering the request ends it now. The wire record, not this
  // message, is what the classifier reads.
  const failSse = (controller: ReadableStreamDefaultController<Uint8Array>, kind: WireErrorKind, code: string): true => {
    exchange.error ??= { kind, code };
    complete = true;
    reader.cancel().catch(() => {});
    controller.enqueue(
      new TextEncoder().encode(
        `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: `mcp-canary: ${code}` } })}\n\n`,
      ),
    );
    controller.close();
    return true;
  };

  return new ReadableStream<Uint8Array>({
    // A pull that enqueues nothing is not called again: read on until something is passed on or ended.
    async pull(controller) {
      while (!(await step(controller)));
    },
    cancel(reason) {
      complete = true;
      return reader.cancel(reason);
    },
  });

  /** One read from the source; true once something was enqueued, or the stream ended or failed. */
  async function step(controller: ReadableStreamDefaultController<Uint8Array>): Promise<boolean> {
    let r: ReadableStreamReadResult<Uint8Array>;
    try {
      r = await reader.read();
    } catch (e) {
      const kind: WireErrorKind = c.signal.aborted ? c.why(c.signal.reason) : 'truncated';
      const code = kind === 'truncated' ? cutShort(exchange, e) : 'aborted while reading the body';
      if (mode === 'sse' && !answered && !scanner!.lastEventId && !c.signal.aborted) return failSse(controller, kind, code);
      exchange.error ??= { kind, code };
      complete = true;
      controller.error(e);
      return true;
    }
    if (r.done) {
      complete = true;
      if (mode === 'json') {
        const text = Buffer.concat(kept).toString('utf8');
        const j = judgeJsonBody(text, id!, facts);
        keepFacts();
        if (j && j.answered === false) {
          exchange.error = { kind: /carries id/.test(j.problem) ? 'wrong_id' : 'wrong_answer', code: j.problem };
          controller.error(new Error(j.problem));
          return true;
        }
        if (keepsAnswer) exchange.answerText = text;
        controller.enqueue(Buffer.concat(kept));
      } else if (mode === 'words') {
        const text = Buffer.concat(kept).toString('utf8');
        exchange.serverWords = serverWords(text, exchange.contentType);
        // The JSON-RPC error of a failed answer is evidence too (-32021, -32022, an uninitialized 2025 server).
        judgeJsonBody(text, id ?? '', facts);
        keepFacts();
        controller.enqueue(Buffer.concat(kept));
      } else if (mode === 'sse' && !answered) {
        if (c.resumable && scanner!.lastEventId !== null) {
          // SEP-1699: a server may close the stream after an event id and expects the client to
          // come back with GET + Last-Event-ID after `retry` ms; the SDK's transport does that.
          exchange.resumeFrom = scanner!.lastEventId;
        } else {
          return failSse(
            controller,
            'no_answer',
            `the event stream ended without an answer (${scanner!.events} event(s), ${scanner!.malformed} not JSON)`,
          );
        }
      }
      controller.close();
      return true;
    }
    const chunk = r.value;
    exchange.bytes += chunk.byteLength;
    if (exchange.bytes > c.maxBytes) {
      exchange.error = { kind: 'too_large', code: `over ${c.maxBytes} bytes` };
      complete = true;
      reader.cancel().catch(() => {});
      if (mode === 'sse' && !answered) return failSse(controller, 'too_large', `over ${c.maxBytes} bytes`);
      controller.error(new Error(`response body exceeded the ${c.maxBytes}-byte cap`));
      return true;
    }
    if (mode === 'json' || mode === 'words') {
      if (mode === 'json' || exchange.bytes <= MAX_WORDS_BYTES) kept.push(chunk);
      return false;
    }
    if (mode === 'sse' && !answered) {
      for (const data of scanner!.push(decoder.decode(chunk, { stream: true }))) {
        if (data === '') continue; // a priming event (SEP-1699) carries an id and no message
        scanner!.events++;
        let msg: unknown;
        try {
          msg = JSON.parse(data);
        } catch {
          scanner!.malformed++;
          continue;
        }
        const j = judgeMessage(msg, id!, facts);
        keepFacts();
        if (j.answered === false) return failSse(controller, /carries id/.test(j.problem) ? 'wrong_id' : 'wrong_answer', j.problem);
        if (j.answered) {
          answered = true;
          if (keepsAnswer) exchange.answerText = data;
        }
      }
    }
    controller.enqueue(chunk);
    return true;
  }
}

export function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/** How a body that broke off after its headers is described: bytes read against those promised. */
function cutShort(x: Exchange, e: unknown): string {
  const promised =
    x.declaredLength !== null && x.declaredLength !== undefined ? ` of the ${x.declaredLength} its Content-Length promised` : '';
  return `the answer broke off after ${x.bytes} byte(s)${promised} (${errorCode(e)})`;
}

/**
 * The server's own words in a failed answer, for the detail: a JSON-RPC `error.message` (or an
 * `error`/`message` string of a plain JSON error), else the first line of a short text body. HTML
 * pages are skipped: their first line is markup, not words.
 */
export function serverWords(text: string, contentType: string | null): string | null {
  const type = mediaType(contentType);
  const trimmed = text.trim();
  if (!trimmed) return null;
  if (type.includes('json') || /^[[{]/.test(trimmed)) {
    try {
      const j = JSON.parse(trimmed) as { error?: unknown; message?: unknown; error_description?: unknown };
      const e = j?.error;
      // A JSON-RPC error's message first, then the plain shapes APIs use, the most readable first.
      const candidates = [
        typeof e === 'object' && e !== null ? (e as { message?: unknown }).message : undefined,
        j?.message,
        j?.error_description,
        e,
      ];
      const words = candidates.find((w): w is string => typeof w === 'string' && w.trim() !== '') ?? null;
      return words ? oneLine(words, 200) : null;
    } catch {
      // not JSON after all: fall through to text
    }
  }
  if (type === 'text/html' || /^<(!doctype|html)/i.test(trimmed)) {
    const title = /<title[^>]*>([^<]{1,200})<\/title>/i.exec(trimmed)?.[1];
    return title ? oneLine(title, 200) : null;
  }
  const first = trimmed.split(/\r?\n/, 1)[0]!;
  return oneLine(first, 200);
}
