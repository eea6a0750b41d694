/**
 * The classifier as pure rows, a test block per row (the SDK's probeClassifier.test.ts is the model):
 * each row recognizes its evidence and classes it, and passes (null) on evidence that is another row's.
 * The tables' own names are checked against these blocks, so a new row without a test fails here.
 */
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { Fault } from '../../../../functions/base/common/step.ts';
import { newExchange, type Exchange } from '../../../../functions/base/net/wire.ts';
import { REQUEST_ROWS, requestFailure, type RequestRow } from '../../../../functions/engine/probe/classify.ts';
import { discoverFailure, erasMixed, pinnedFailure } from '../../../../functions/engine/probe/connect.ts';
import { STEP_ROWS, stepFailure, type StepRow } from '../../../../functions/engine/probe/step-rows.ts';

/** An answered exchange of tools/list, with `over` changed. */
function exchange(over: Partial<Exchange>): Exchange {
  return { ...newExchange('POST', 'tools/list'), status: 200, contentType: 'application/json', ...over };
}

/** An HTTP failure as the SDK throws one (its code does not matter to the rows: the status does). */
const httpError = (status: number) => new SdkHttpError(SdkErrorCode.ClientHttpUnexpectedContent, 'x', { status });
const netError = (code: string) => new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code }) });
const row = (table: ReadonlyArray<readonly [string, RequestRow | StepRow]>, name: string) => table.find(([n]) => n === name)![1];
const request = (name: string, what: string, error: unknown, x?: Exchange) =>
  (row(REQUEST_ROWS, name) as RequestRow)(requestFailure(what, error, x));

/** A step failure on tools/call (or `rpcMethod`), with `exchanges` as the attempt's record. */
function step(
  name: string,
  error: unknown,
  exchanges: Exchange[],
  over: { era?: '2026-07-28' | '2025-11-25'; rpcMethod?: string; budgetSpent?: boolean } = {},
) {
  const rpcMethod = over.rpcMethod ?? 'tools/call';
  const session = { era: over.era ?? '2025-11-25', revision: over.era ?? '2025-11-25' } as const;
  return (row(STEP_ROWS, name) as StepRow)(stepFailure(rpcMethod, error, exchanges, rpcMethod, session, over.budgetSpent ?? false));
}

const REQUEST_CASES: Record<string, () => void> = {
  wire: () => {
    it('classes what the wire recorded below HTTP, before anything the SDK says', () => {
      expect(request('wire', 'tools/list', new Error('x'), exchange({ error: { kind: 'unreachable', code: 'ECONNRESET' } }))).toMatchObject(
        {
          failure: 'unreachable',
          retryable: true,
        },
      );
      expect(request('wire', 'tools/list', new Error('x'), exchange({ error: { kind: 'truncated', code: 'cut' } }))).toMatchObject({
        failure: 'protocol',
      });
    });
    it('passes when the wire recorded no error', () => {
      expect(request('wire', 'tools/list', new Error('x'), exchange({}))).toBeNull();
    });
  },
  'JSON-RPC error': () => {
    it('classes a JSON-RPC error in a 2xx answer by its code and the step', () => {
      const x = exchange({ rpcError: { code: -32603, message: 'fetch failed' } });
      expect(request('JSON-RPC error', 'tools/list', new ProtocolError(-32603, 'fetch failed'), x)).toMatchObject({
        failure: 'server_error',
      });
    });
    it('passes when a non-2xx status decides (a code that does not name its cause)', () => {
      const x = exchange({ status: 503, rpcError: { code: -32603, message: 'down' } });
      expect(request('JSON-RPC error', 'tools/list', httpError(503), x)).toBeNull();
    });
  },
  'HTTP status': () => {
    it('classes a failed answer by its status; an auth wall keeps what was seen and the challenge error', () => {
      const x = exchange({ status: 401, wwwAuthenticate: 'Bearer error="invalid_token"' });
      const f = request('HTTP status', 'discover', new Error('x'), x);
      expect(f).toMatchObject({ failure: 'auth', status: 401, wall: { challengeError: 'invalid_token' } });
      expect(f!.wall!.seen).toMatch(/^HTTP 401, application\/json \(WWW-Authenticate: Bearer error="invalid_token"\)$/);
    });
    it('passes on a 2xx answer', () => {
      expect(request('HTTP status', 'tools/list', new Error('x'), exchange({ status: 200 }))).toBeNull();
    });
  },
  'SDK timeout': () => {
    it("classes the SDK's REQUEST_TIMEOUT as timeout, worth a retry", () => {
      expect(request('SDK timeout', 'tools/list', new SdkError(SdkErrorCode.RequestTimeout, 'late'))).toMatchObject({
        failure: 'timeout',
        retryable: true,
      });
    });
    it('passes on any other SDK code', () => {
      expect(request('SDK timeout', 'tools/list', new SdkError(SdkErrorCode.InvalidResult, 'bad'))).toBeNull();
    });
  },
  'network error': () => {
    it('reads the innermost code of the cause chain', () => {
      expect(request('network error', 'x', netError('ENOTFOUND'))).toMatchObject({ failure: 'unreachable' });
      expect(request('network error', 'x', netError('CERT_HAS_EXPIRED'))).toMatchObject({ failure: 'tls', retryable: false });
    });
    it('passes on an error with no network code', () => {
      expect(request('network error', 'x', new Error('plain'))).toBeNull();
    });
  },
  'SDK error': () => {
    it('classes any other SDK error as protocol, in its own words', () => {
      expect(request('SDK error', 'tools/list', new SdkError(SdkErrorCode.InvalidResult, 'no tools array'))).toMatchObject({
        failure: 'protocol',
        detail: 'tools/list: answer does not match the MCP schema (no tools array)',
      });
    });
    it('passes on what is not an SDK error', () => {
      expect(request('SDK error', 'tools/list', new Error('x'))).toBeNull();
    });
  },
  'not MCP': () => {
    it('recognizes whatever is left, as not a valid MCP answer', () => {
      expect(request('not MCP', 'tools/list', new Error('odd'))).toMatchObject({
        failure: 'protocol',
        detail: 'tools/list: not a valid MCP answer (odd)',
      });
    });
  },
};

const modernCall = exchange({
  rpcMethod: 'tools/call',
  status: 400,
  rpcError: { code: -32000, message: 'Bad Request: Server not initialized' },
});
const STEP_CASES: Record<string, () => void> = {
  'era flip': () => {
    it('classes a 2025 answer to a session of the 2026-07-28 era as revision, with both answers', () => {
      const f = step(
        'era flip',
        httpError(400),
        [exchange({ rpcMethod: 'server/discover', supportedVersions: ['2026-07-28'] }), modernCall],
        {
          era: '2026-07-28',
        },
      );
      expect(f).toMatchObject({ failure: 'revision' });
      expect(f!.detail).toContain('though its discover offered 2026-07-28');
    });
    it('passes on a 2025 session', () => {
      expect(step('era flip', httpError(400), [modernCall])).toBeNull();
    });
  },
  'multi-round-trip results': () => {
    it("classes the SDK's input_required errors by code", () => {
      const e = new SdkError(SdkErrorCode.InputRequiredRoundsExceeded, 'whatever', { rounds: 10 });
      expect(step('multi-round-trip results', e, [exchange({ rpcMethod: 'tools/call' })])).toMatchObject({ failure: 'tool_error' });
    });
    it('passes on an error that is not about rounds', () => {
      expect(step('multi-round-trip results', new Error('x'), [exchange({ rpcMethod: 'tools/call' })])).toBeNull();
    });
  },
  'stream never resumed': () => {
    it('names the resumptions that never brought the answer of a stream closed after an event id', () => {
      const closed = exchange({ rpcMethod: 'tools/call', resumeFrom: 'ev-7', error: { kind: 'timeout', code: 'x' } });
      const f = step('stream never resumed', new Error('x'), [closed, exchange({ httpMethod: 'GET', rpcMethod: null, status: 503 })]);
      expect(f).toMatchObject({ failure: 'timeout' });
      expect(f!.detail).toContain('after event "ev-7"; 1 resumption(s) with Last-Event-ID brought no answer (last: HTTP 503)');
    });
    it('passes when no stream was left to resume', () => {
      expect(
        step('stream never resumed', new Error('x'), [exchange({ rpcMethod: 'tools/call', error: { kind: 'timeout', code: 'x' } })]),
      ).toBeNull();
    });
  },
  timeout: () => {
    it('says what the server had asked the client for while the call timed out', () => {
      const x = exchange({ rpcMethod: 'tools/call', error: { kind: 'timeout', code: 'x' }, serverRequests: ['elicitation/create'] });
      expect(step('timeout', new Error('x'), [x])!.detail).toContain('the server had asked the client for elicitation/create');
    });
    it('passes on anything but a timeout', () => {
      expect(step('timeout', new Error('x'), [exchange({ rpcMethod: 'tools/call' })])).toBeNull();
    });
  },
  'outputSchema unusable': () => {
    it("classes the SDK's ProtocolError before any tools/call went out as an answer that cannot be checked", () => {
      const f = step('outputSchema unusable', new ProtocolError(-32602, 'anything at all'), []);
      expect(f).toMatchObject({ failure: 'assertion' });
      expect(f!.detail).toMatch(/^tools\/call: the tool's outputSchema cannot be used to check its answer \(anything at all\)/);
    });
    it('passes when the call went out (the answer is what failed) or the server sent the error', () => {
      expect(step('outputSchema unusable', new ProtocolError(-32602, 'x'), [exchange({ rpcMethod: 'tools/call' })])).toBeNull();
      expect(step('outputSchema unusable', new Error('not the SDK'), [])).toBeNull();
    });
  },
  'structuredContent mismatch': () => {
    it("classes the SDK's own ProtocolError after the answer as the answer failing its outputSchema, whatever its words", () => {
      expect(
        step('structuredContent mismatch', new ProtocolError(-32602, 'words do not decide'), [exchange({ rpcMethod: 'tools/call' })]),
      ).toMatchObject({
        failure: 'assertion',
        detail: "tools/call: structuredContent does not match the tool's outputSchema (words do not decide)",
      });
    });
    it('passes on a JSON-RPC error the server answered', () => {
      const x = exchange({ rpcMethod: 'tools/call', rpcError: { code: -32602, message: 'bad params' } });
      expect(step('structuredContent mismatch', new ProtocolError(-32602, 'bad params'), [x])).toBeNull();
    });
  },
  request: () => {
    it('recognizes whatever is left, in the request rows’ words', () => {
      expect(step('request', netError('ECONNREFUSED'), [exchange({ rpcMethod: 'tools/call' })])).toMatchObject({ failure: 'unreachable' });
    });
  },
};

describe('the row tables', () => {
  it('have a test block for every row, and no block for a row they lack', () => {
    expect(Object.keys(REQUEST_CASES)).toEqual(REQUEST_ROWS.map(([name]) => name));
    expect(Object.keys(STEP_CASES)).toEqual(STEP_ROWS.map(([name]) => name));
  });
});

for (const [name, cases] of Object.entries(REQUEST_CASES)) describe(`row: ${name}`, cases);
for (const [name, cases] of Object.entries(STEP_CASES)) describe(`row: ${name} (step)`, cases);

const fault = (failure: Fault['failure'], detail = 'x'): Fault => ({ failure, detail, retryable: false });

describe('row: pinned revision (connect)', () => {
  it('blames the pin only on an answer of the other era', () => {
    const legacyAnswer = exchange({ rpcMethod: 'server/discover', status: 400, rpcError: { code: -32600, message: 'Bad Request' } });
    expect(pinnedFailure('2026-07-28', fault('http_status'), legacyAnswer)).toMatchObject({ failure: 'revision' });
  });
  it('keeps the class of an outage or a server error', () => {
    const down = exchange({ rpcMethod: 'server/discover', status: 503, rpcError: { code: -32603, message: 'down' } });
    expect(pinnedFailure('2026-07-28', fault('http_status'), down)).toMatchObject({ failure: 'http_status' });
  });
});

describe('row: two eras behind one endpoint (connect)', () => {
  it('recognizes a 2025 discover answer followed by a 2026-07-28-only initialize answer', () => {
    const discover = exchange({ rpcMethod: 'server/discover', status: 400, rpcError: { code: -32601, message: 'Method not found' } });
    const init = exchange({ rpcMethod: 'initialize', rpcError: { code: -32601, message: 'Method not found' } });
    expect(erasMixed(discover, init, fault('server_error'))).toMatchObject({ failure: 'revision' });
  });
  it('passes when initialize answered like a 2025 server too', () => {
    const discover = exchange({ rpcMethod: 'server/discover', status: 400, rpcError: { code: -32601, message: 'x' } });
    expect(
      erasMixed(discover, exchange({ rpcMethod: 'initialize', rpcError: { code: -32603, message: 'x' } }), fault('server_error')),
    ).toBeNull();
  });
});

describe('row: a discover that failed rather than said "legacy" (connect)', () => {
  it('recognizes a 5xx and a server that offers only revisions the canary does not speak', () => {
    expect(discoverFailure(exchange({ rpcMethod: 'server/discover', status: 500 }))).toMatchObject({ failure: 'http_status' });
    expect(discoverFailure(exchange({ rpcMethod: 'server/discover', supportedVersions: ['2099-01-01'] }))).toMatchObject({
      failure: 'revision',
    });
  });
  it('passes on the 4xx of a 2025 server', () => {
    expect(discoverFailure(exchange({ rpcMethod: 'server/discover', status: 400, rpcError: { code: -32601, message: 'x' } }))).toBeNull();
  });
});
