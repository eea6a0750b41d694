/**
 * The body of one answer as the SDK reads it, checked on the way (see `inspectBody`). Split from the
 * wire, which owns the request; this owns what comes back.
 */
import { oneLine } from '../common/redact.ts';
import { CanaryError, CanaryErrorCode } from '../common/errors.ts';
import { readJsonBody, readMessage, SseScanner, wellFormedError, type AnswerFacts, type RequestId } from './answer.ts';
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
  return new AnswerBody(source, c).stream();
}

/** One answer's body on its way to the SDK: each read is passed on, kept, judged or ended here. */
class AnswerBody {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private readonly facts: AnswerFacts = { rpcError: null, supportedVersions: null };
  private readonly scanner: SseScanner | null;
  private readonly kept: Uint8Array[] = [];
  /**
   * A tool's answer is kept as text: JSON.parse rounds integers beyond 2^53, and expectJson compares
   * exactly. A tools/list page too: when the SDK refuses a page for one broken entry, the engine reads it
   * entry by entry (probe/tolerant-list.ts).
   */
  private readonly keepsAnswer: boolean;
  private answered = false;
  private complete = false;

  constructor(
    source: ReadableStream<Uint8Array>,
    private readonly c: BodyContext,
  ) {
    this.reader = source.getReader();
    this.scanner = c.mode === 'sse' ? new SseScanner() : null;
    this.keepsAnswer = c.exchange.rpcMethod === 'tools/call' || c.exchange.rpcMethod === 'tools/list';
    // A timeout that strikes while the body streams is recorded here; an abort after the body was read
    // whole (the SDK closing the request) is no failure.
    c.signal.addEventListener(
      'abort',
      () => {
        if (!this.complete) c.exchange.error ??= { kind: c.why(c.signal.reason), code: 'aborted while reading the body' };
      },
      { once: true },
    );
  }

  stream(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      // A pull that enqueues nothing is not called again: read on until something is passed on or ended.
      pull: async (controller) => {
        while (!(await this.step(controller)));
      },
      cancel: (reason) => {
        this.complete = true;
        return this.reader.cancel(reason);
      },
    });
  }

  /** One read from the source; true once something was enqueued, or the stream ended or failed. */
  private async step(controller: ReadableStreamDefaultController<Uint8Array>): Promise<boolean> {
    let r: ReadableStreamReadResult<Uint8Array>;
    try {
      r = await this.reader.read();
    } catch (e) {
      return this.broke(controller, e);
    }
    if (r.done) {
      this.complete = true;
      return this.ended(controller);
    }
    return this.chunk(controller, r.value);
  }

  /** The source failed mid-body: cut short (the host was reached), or aborted by a timeout or the budget. */
  private broke(controller: ReadableStreamDefaultController<Uint8Array>, e: unknown): true {
    const { c } = this;
    const kind: WireErrorKind = c.signal.aborted ? c.why(c.signal.reason) : 'truncated';
    const code = kind === 'truncated' ? cutShort(c.exchange, e) : 'aborted while reading the body';
    if (c.mode === 'sse' && !this.answered && !this.scanner!.lastEventId && !c.signal.aborted) return this.failSse(controller, kind, code);
    c.exchange.error ??= { kind, code };
    this.complete = true;
    controller.error(e);
    return true;
  }

  /** The source ended: a JSON answer is judged whole, a failed one read for its words, an event stream ended with or without its answer. */
  private ended(controller: ReadableStreamDefaultController<Uint8Array>): true {
    const { exchange, mode, id, resumable } = this.c;
    if (mode === 'json') {
      const text = Buffer.concat(this.kept).toString('utf8');
      const r = readJsonBody(text, id!, this.facts);
      this.keepFacts();
      if (r?.kind === 'refused') {
        exchange.error = { kind: r.refusal, code: r.problem };
        controller.error(new CanaryError(CanaryErrorCode.answerRefused, r.problem, { kind: r.refusal }));
        return true;
      }
      if (this.keepsAnswer) exchange.answerText = text;
      controller.enqueue(Buffer.concat(this.kept));
    } else if (mode === 'words') {
      const text = Buffer.concat(this.kept).toString('utf8');
      // The JSON-RPC error of a failed answer is evidence too (-32021, -32022, an uninitialized 2025 server),
      // in a JSON body or in an event stream a framework sent with a failed status.
      if (mediaType(exchange.contentType) === 'text/event-stream') {
        const events = new SseScanner().push(`${text}\n\n`).filter((d) => d !== '');
        for (const data of events) {
          try {
            readMessage(JSON.parse(data), id ?? '', this.facts);
          } catch {
            // not JSON: its words are the event's text
          }
        }
        exchange.serverWords = this.facts.rpcError?.message || serverWords(events[0] ?? text, null);
      } else {
        exchange.serverWords = serverWords(text, exchange.contentType);
        readJsonBody(text, id ?? '', this.facts);
      }
      this.keepFacts();
      controller.enqueue(Buffer.concat(this.kept));
    } else if (mode === 'sse' && !this.answered) {
      const scanner = this.scanner!;
      // SEP-1699: a server may close the stream after an event id and expects the client to come back
      // with GET + Last-Event-ID after `retry` ms; the SDK's transport does that.
      if (resumable && scanner.lastEventId !== null) exchange.resumeFrom = scanner.lastEventId;
      else
        return this.failSse(
          controller,
          'no_answer',
          `the event stream ended without an answer (${scanner.events} event(s), ${scanner.malformed} not JSON${namesOf(scanner.otherNames)})`,
        );
    }
    controller.close();
    return true;
  }

  /** One chunk: counted against the cap, kept (JSON, words) or judged event by event (SSE), passed on. */
  private chunk(controller: ReadableStreamDefaultController<Uint8Array>, chunk: Uint8Array): boolean {
    const { exchange, mode, maxBytes } = this.c;
    exchange.bytes += chunk.byteLength;
    if (exchange.bytes > maxBytes) {
      exchange.error = { kind: 'too_large', code: `over ${maxBytes} bytes` };
      this.complete = true;
      this.reader.cancel().catch(() => {});
      if (mode === 'sse' && !this.answered) return this.failSse(controller, 'too_large', `over ${maxBytes} bytes`);
      controller.error(
        new CanaryError(CanaryErrorCode.answerRefused, `response body exceeded the ${maxBytes}-byte cap`, { kind: 'too_large' }),
      );
      return true;
    }
    if (mode === 'json' || mode === 'words') {
      if (mode === 'json' || exchange.bytes <= MAX_WORDS_BYTES) this.kept.push(chunk);
      return false;
    }
    if (mode === 'sse' && !this.answered) return this.scan(controller, chunk);
    controller.enqueue(chunk);
    return true;
  }

  /**
   * The events a chunk completes, each judged against the request and passed on as it came — except the
   * server's notifications (log lines, progress), which the canary has no use for: the SDK would parse
   * each one, and a flood of small ones up to the byte cap peaked a CLI past 300 MB. True when something
   * was passed on or the stream ended (a pull that enqueues nothing reads on).
   */
  private scan(controller: ReadableStreamDefaultController<Uint8Array>, chunk: Uint8Array): boolean {
    const scanner = this.scanner!;
    let passOn = '';
    for (const { data, event, raw } of scanner.pushEvents(this.decoder.decode(chunk, { stream: true }))) {
      // A priming event (SEP-1699) carries an id and no message: the SDK's transport needs its id.
      if (data === null || data === '' || this.answered) {
        passOn += raw;
        continue;
      }
      scanner.events++;
      // MCP sends its messages as unnamed or `message` events; the SDK skips any other name.
      const named = event !== null && event !== 'message' ? event : null;
      if (named !== null) scanner.otherNames.push(named);
      let msg: unknown;
      try {
        msg = JSON.parse(data);
      } catch {
        scanner.malformed++;
        // An event that is not a JSON-RPC message stops the stream making sense: no answer a client could
        // trust follows, and the SDK would wait for its timeout. Ended now, naming what came.
        const what = named !== null ? `an event named "${escaped(named, 40)}"` : 'an event';
        return this.failSse(
          controller,
          'wrong_answer',
          `the event stream stopped making sense: ${what} that is not JSON ("${escaped(data, 80)}")`,
        );
      }
      const r = readMessage(msg, this.c.id!, this.facts);
      this.keepFacts();
      if (r.kind === 'refused') return this.failSse(controller, r.refusal, r.problem);
      if (!isNotification(msg)) passOn += raw;
      if (r.kind === 'answers' && named !== null) {
        // The answer itself under another name: the SDK skips it and would wait for its timeout.
        return this.failSse(
          controller,
          'wrong_answer',
          `the answer came in an event named "${escaped(named, 40)}", which clients skip: MCP's messages are unnamed or "message" events`,
        );
      }
      if (r.kind === 'answers') {
        this.answered = true;
        if (this.keepsAnswer) this.c.exchange.answerText = data;
        if (!wellFormedError(msg)) return this.answerMalformedError(controller);
      }
    }
    // Once answered, the rest of the stream passes on unread, this chunk's unfinished tail first.
    if (this.answered) passOn += scanner.takePending();
    if (!passOn) return false;
    controller.enqueue(new TextEncoder().encode(passOn));
    return true;
  }

  /**
   * The SDK ignores an event stream that errors or ends without the answer, and waits for its timeout;
   * a synthetic JSON-RPC error answering the request ends it now. The wire record, not this message,
   * is what the classifier reads.
   */
  private failSse(controller: ReadableStreamDefaultController<Uint8Array>, kind: WireErrorKind, code: string): true {
    this.c.exchange.error ??= { kind, code };
    this.complete = true;
    this.reader.cancel().catch(() => {});
    const message = { jsonrpc: '2.0', id: this.c.id, error: { code: -32603, message: `mcp-canary: ${code}` } };
    controller.enqueue(new TextEncoder().encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
    controller.close();
    return true;
  }

  /**
   * The server's error broke JSON-RPC's shape (a string code, no message): the SDK would drop the event
   * and wait for its timeout. The record keeps the error as sent (the classifier reads that); the SDK
   * gets it well formed, now.
   */
  private answerMalformedError(controller: ReadableStreamDefaultController<Uint8Array>): true {
    const e = this.c.exchange.rpcError;
    this.complete = true;
    this.reader.cancel().catch(() => {});
    const error = { code: e && Number.isInteger(e.code) ? e.code : -32603, message: e?.message ?? '' };
    const message = { jsonrpc: '2.0', id: this.c.id, error };
    controller.enqueue(new TextEncoder().encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`));
    controller.close();
    return true;
  }

  private keepFacts(): void {
    const { exchange } = this.c;
    const f = this.facts;
    exchange.rpcError = f.rpcError ?? exchange.rpcError;
    if (f.supportedVersions) exchange.supportedVersions = f.supportedVersions;
    if (f.toolNames) exchange.toolNames = f.toolNames;
    if (f.serverRequests) exchange.serverRequests = f.serverRequests;
    if (f.resultType) exchange.resultType = f.resultType;
    if (f.inputRequests) exchange.inputRequests = f.inputRequests;
  }
}

/** A JSON-RPC notification: a method and no id. */
function isNotification(msg: unknown): boolean {
  return typeof msg === 'object' && msg !== null && typeof (msg as { method?: unknown }).method === 'string' && !('id' in msg);
}

/** `, named "ping" ×3, "error"`: the event names other than `message` a stream carried. */
function namesOf(names: readonly string[]): string {
  if (names.length === 0) return '';
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  const shown = [...counts].slice(0, 4).map(([n, c]) => `"${escaped(n, 40)}"${c > 1 ? ` ×${c}` : ''}`);
  return `, named ${shown.join(', ')}${counts.size > 4 ? ', …' : ''}`;
}

/** Server text in a wire detail: one line, cut, control characters escaped. */
function escaped(text: string, max: number): string {
  return oneLine(JSON.stringify(text).slice(1, -1), max);
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
    // Express's (finalhandler's) error page says only "Error" in its title; its words are in <pre>:
    // "Cannot POST /mcp".
    const pre = title?.trim() === 'Error' ? /<pre>([^<]{1,200})<\/pre>/i.exec(trimmed)?.[1] : undefined;
    const words = pre?.trim() || title;
    return words ? oneLine(words, 200) : null;
  }
  const first = trimmed.split(/\r?\n/, 1)[0]!;
  return oneLine(first, 200);
}
