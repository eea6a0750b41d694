/**
 * Pure checks of an HTTP answer to one JSON-RPC request: does it carry the response to *that* request?
 * The SDK drops what it cannot use (a wrong id, an event with both `result` and `error`, `[]`) and then
 * waits out its request timeout, which would call a fast, broken server a slow one. These checks let
 * the wire end such an answer at once, with a description of what came instead.
 */
import { shownName } from '../common/names.ts';
import { oneLine } from '../common/redact.ts';

export type RequestId = string | number;

/** A JSON-RPC error as the server sent it; `codeAsSent` when its code is not an integer (`"E_UPSTREAM"`, none). */
export interface RecordedRpcError {
  readonly code: number;
  readonly message: string;
  readonly codeAsSent?: string;
  readonly data?: unknown;
}

/**
 * Whether the SDK's schema takes this error (an integer code, a string message): one it does not is
 * dropped from an event stream, and the request waits for its timeout.
 */
export function wellFormedError(m: unknown): boolean {
  const e = (m as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return !e || (Number.isInteger(e.code) && typeof e.message === 'string');
}

/** What a JSON-RPC answer showed: the error it carried and a discover's offered revisions. */
export interface AnswerFacts {
  rpcError: RecordedRpcError | null;
  supportedVersions: string[] | null;
  /** The tool names a `tools/list` result carried on the wire (before the client dropped any). */
  toolNames?: string[] | null;
  /** The methods of requests the server sent the client on the stream (`elicitation/create`, …). */
  serverRequests?: string[];
  /** A result's `resultType` when it was not `complete`. */
  resultType?: string | null;
  /** An `input_required` result's input requests, as `method (key)`. */
  inputRequests?: string[] | null;
}

/**
 * What one message says about the request it may answer: it `answers` it; it is `unrelated` (a
 * notification or a server's request riding the same stream); or it is `refused`: it can never be the
 * answer, so the request fails now. `refusal` says how (another request's id, or no response in it) and
 * `problem` says it in words for the detail.
 */
export type MessageReading =
  | { readonly kind: 'answers' }
  | { readonly kind: 'unrelated' }
  | { readonly kind: 'refused'; readonly refusal: 'wrong_id' | 'wrong_answer'; readonly problem: string };

const refused = (problem: string, refusal: 'wrong_id' | 'wrong_answer' = 'wrong_answer'): MessageReading => ({
  kind: 'refused',
  refusal,
  problem,
});

/** One parsed JSON-RPC message (or batch) against the request id. */
export function readMessage(msg: unknown, id: RequestId, facts: AnswerFacts): MessageReading {
  if (Array.isArray(msg)) {
    if (msg.length === 0) return refused('the answer is an empty JSON array ([]), which carries no response');
    let sawOther = false;
    for (const m of msg) {
      const r = readMessage(m, id, facts);
      if (r.kind !== 'unrelated') return r;
      sawOther = true;
    }
    return sawOther ? { kind: 'unrelated' } : refused('the answer is a JSON array without the response');
  }
  if (msg === null || typeof msg !== 'object') {
    return refused(`the answer is ${msg === null ? 'null' : `a JSON ${typeof msg}`}, not a JSON-RPC message`);
  }
  const m = msg as Record<string, unknown>;
  // A request or notification from the server rides the same stream: not an answer, not a fault. A
  // request is remembered: a call that then hangs was waiting for its answer (an elicitation refused).
  if (typeof m.method === 'string') {
    if ('id' in m) (facts.serverRequests ??= []).push(oneLine(m.method, 60));
    return { kind: 'unrelated' };
  }
  const hasResult = 'result' in m;
  const hasError = 'error' in m;
  record(m, facts);
  if (!('id' in m)) return refused('the answer has no id, no method: not a JSON-RPC message');
  // `null` is the id of an error about a request the server could not read: it answers ours.
  if (m.id !== null && m.id !== id) {
    return refused(
      `the JSON-RPC answer carries id ${oneLine(JSON.stringify(m.id) ?? 'undefined', 40)}, not the request's ${JSON.stringify(id)}`,
      'wrong_id',
    );
  }
  if (hasResult && hasError) return refused(`the answer to request ${JSON.stringify(id)} carries both result and error`);
  if (!hasResult && !hasError) return refused(`the answer to request ${JSON.stringify(id)} carries neither result nor error`);
  return { kind: 'answers' };
}

function record(m: Record<string, unknown>, facts: AnswerFacts): void {
  const e = m.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
  // An error object is the server's refusal even when it breaks JSON-RPC's shape (a string code, no
  // message): kept as the server's error, its code shown as sent.
  if (e && typeof e === 'object' && !Array.isArray(e) && ('code' in e || 'message' in e)) {
    const integer = typeof e.code === 'number' && Number.isInteger(e.code);
    facts.rpcError = {
      code: typeof e.code === 'number' ? e.code : Number.NaN,
      message: typeof e.message === 'string' ? oneLine(e.message, 300) : '',
      ...(integer ? {} : { codeAsSent: oneLine(JSON.stringify(e.code) ?? 'no code', 40) }),
      ...(e.data !== undefined ? { data: e.data } : {}),
    };
  }
  const r = m.result as { supportedVersions?: unknown; tools?: unknown; resultType?: unknown } | undefined;
  if (r && typeof r === 'object' && typeof r.resultType === 'string' && r.resultType !== 'complete') {
    facts.resultType = oneLine(r.resultType, 40);
    const asked = (r as { inputRequests?: unknown }).inputRequests;
    facts.inputRequests =
      asked && typeof asked === 'object'
        ? Object.entries(asked)
            .slice(0, 8)
            .map(([key, req]) => `${shownName(String((req as { method?: unknown })?.method ?? '?'), 60)} ("${shownName(key, 40)}")`)
        : [];
  }
  if (r && typeof r === 'object' && Array.isArray(r.supportedVersions)) {
    facts.supportedVersions = r.supportedVersions
      .filter((v): v is string => typeof v === 'string')
      .slice(0, 8)
      .map((v) => oneLine(v, 40));
  }
  if (r && typeof r === 'object' && Array.isArray(r.tools)) {
    facts.toolNames = r.tools
      .slice(0, 500)
      .map((t) => (t as { name?: unknown })?.name)
      .filter((n): n is string => typeof n === 'string');
  }
}

/**
 * A JSON body: the whole of it, parsed once; `null` when it is not JSON (the SDK reports that itself).
 * A body of only notifications and requests is refused: a JSON answer has nothing else to come.
 */
export function readJsonBody(text: string, id: RequestId, facts: AnswerFacts): MessageReading | null {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return null;
  }
  const r = readMessage(msg, id, facts);
  return r.kind === 'unrelated' ? refused('the answer holds only requests or notifications, not the response') : r;
}

/**
 * Incremental Server-Sent Events framing (the WHATWG rules the SDK's parser follows): lines end in
 * LF, CRLF or CR; a blank line ends an event; `data:` lines join with LF; `id:` sets the last event id.
 * Hand-written because the SDK does not export its parser and the wire must look at each event as it
 * arrives to end a wrong answer at once.
 */
export class SseScanner {
  lastEventId: string | null = null;
  retryMs: number | null = null;
  events = 0;
  malformed = 0;
  /** The `event:` names other than `message` seen so far, in order (MCP's messages are unnamed or `message`). */
  readonly otherNames: string[] = [];
  private buffer = '';
  private data: string[] = [];
  private sawData = false;
  private name: string | null = null;
  /** The field lines of the event being read, as they came (comments left out). */
  private raw: string[] = [];

  /** Feeds text; returns the data of each event completed by it. */
  push(text: string): string[] {
    return this.pushEvents(text)
      .filter((e) => e.data !== null)
      .map((e) => e.data!);
  }

  /**
   * Feeds text; returns each event completed by it: its data (null for one of fields only, a priming
   * `id:`/`retry:`), its `event:` name when it has one, and its text as it came, to pass on.
   */
  pushEvents(text: string): Array<{ data: string | null; event: string | null; raw: string }> {
    this.buffer += text;
    const out: Array<{ data: string | null; event: string | null; raw: string }> = [];
    for (;;) {
      const m = /\r\n|\n|\r/.exec(this.buffer);
      // A lone CR at the very end may be the first half of CRLF: wait for more.
      if (!m || (m[0] === '\r' && m.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      if (line === '') {
        if (this.raw.length > 0)
          out.push({ data: this.sawData ? this.data.join('\n') : null, event: this.name, raw: `${this.raw.join('\n')}\n\n` });
        this.data = [];
        this.sawData = false;
        this.name = null;
        this.raw = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      this.raw.push(line);
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') {
        this.data.push(value);
        this.sawData = true;
      } else if (field === 'event') this.name = value === '' ? null : value;
      else if (field === 'id' && !value.includes('\0')) this.lastEventId = value;
      else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
    }
    return out;
  }

  /** The text not yet completed into an event, as it came; the scanner forgets it. */
  takePending(): string {
    const pending = `${this.raw.length ? `${this.raw.join('\n')}\n` : ''}${this.buffer}`;
    this.raw = [];
    this.buffer = '';
    this.data = [];
    this.sawData = false;
    this.name = null;
    return pending;
  }
}
