/** The pure parts: classifier rows, answer checks, redaction. */
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { classifyError, classifyStatus } from '../../../../functions/engine/probe/classify.ts';
import { checkAnswer, lookup } from '../../../../functions/engine/probe/expect.ts';
import type { Exchange } from '../../../../functions/base/net/wire.ts';
import { Redactor } from '../../../../functions/base/common/redact.ts';

function exchange(over: Partial<Exchange>): Exchange {
  return {
    httpMethod: 'POST',
    rpcMethod: 'tools/list',
    status: null,
    contentType: null,
    wwwAuthenticate: null,
    retryAfter: null,
    redirectTo: null,
    error: null,
    rpcError: null,
    bytes: 0,
    ...over,
  };
}

describe('classify', () => {
  it.each([
    [exchange({ error: { kind: 'unreachable', code: 'ECONNRESET' } }), 'unreachable', true],
    [exchange({ error: { kind: 'tls', code: 'CERT_HAS_EXPIRED' } }), 'tls', false],
    [exchange({ error: { kind: 'timeout', code: 'x' } }), 'timeout', true],
    [exchange({ error: { kind: 'budget', code: 'x' } }), 'timeout', false],
    [exchange({ error: { kind: 'too_large', code: 'over 4194304 bytes' } }), 'protocol', false],
    [exchange({ status: 401 }), 'auth', false],
    [exchange({ status: 403 }), 'auth', false],
    [exchange({ status: 429, retryAfter: '30' }), 'http_status', true],
    [exchange({ status: 408 }), 'http_status', true],
    [exchange({ status: 425 }), 'http_status', true],
    [exchange({ status: 409, retryAfter: '5' }), 'http_status', true],
    [exchange({ status: 503 }), 'http_status', true],
    [exchange({ status: 404 }), 'http_status', false],
  ])('row %#: wire evidence → %s', (x, failure, retryable) => {
    expect(classifyError('tools/list', new Error('whatever'), x)).toMatchObject({ failure, retryable });
  });

  it('keeps the Retry-After of a 429 and the challenge of a 401 in the detail', () => {
    expect(classifyStatus('tools/list', 429, exchange({ retryAfter: '30' })).detail).toContain('Retry-After: 30');
    expect(classifyStatus('discover', 401, exchange({ wwwAuthenticate: 'Bearer error="invalid_token"' })).detail).toContain(
      'invalid_token',
    );
  });

  it('classifies SDK timeouts, JSON-RPC errors and -32022', () => {
    expect(classifyError('x', new SdkError(SdkErrorCode.RequestTimeout, 'timed out'), undefined).failure).toBe('timeout');
    expect(
      classifyError('x', new ProtocolError(-32603, 'boom'), exchange({ status: 200, rpcError: { code: -32603, message: 'boom' } })),
    ).toMatchObject({
      failure: 'server_error',
      detail:
        'x: the server answered JSON-RPC error -32603 (internal error): "boom" — the MCP server, or what is behind it, failed this step',
    });
    expect(classifyError('x', new ProtocolError(-32022, 'unsupported'), undefined).failure).toBe('revision');
  });

  it('reads socket errors from the cause chain', () => {
    const e = new TypeError('fetch failed', { cause: Object.assign(new Error('self signed'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }) });
    expect(classifyError('x', e, undefined).failure).toBe('tls');
    const r = new TypeError('fetch failed', { cause: Object.assign(new Error('nope'), { code: 'ENOTFOUND' }) });
    expect(classifyError('x', r, undefined).failure).toBe('unreachable');
  });
});

describe('answer checks', () => {
  const result = {
    content: [{ type: 'text' as const, text: 'EURUSD 1.08' }],
    structuredContent: { rate: 1.08, quote: { pair: 'EURUSD', tags: ['fx', 'spot'] } },
  };

  it('passes when every condition holds, with objects compared regardless of key order', () => {
    expect(
      checkAnswer(result, {
        expectText: 'EURUSD',
        expectJson: { rate: 1.08, 'quote.tags.1': 'spot', quote: { tags: ['fx', 'spot'], pair: 'EURUSD' } },
      }),
    ).toEqual([]);
  });

  it('shows what was seen for each failed condition', () => {
    expect(checkAnswer(result, { expectText: 'GBP', expectJson: { rate: 2, 'quote.nope': 1 } })).toEqual([
      'text contains "GBP", got "EURUSD 1.08"',
      'rate == 2, got 1.08',
      'quote.nope == 1, got nothing at that path',
    ]);
  });

  it('does not walk into prototypes', () => {
    expect(lookup({}, 'constructor')).toEqual({ found: false });
    expect(lookup({ a: [1] }, 'a.length')).toEqual({ found: false });
  });
});

describe('redactor', () => {
  it('redacts a header value whole, its credential part, and its URL-encoded form', () => {
    const r = new Redactor(['Bearer abc123xyz']);
    expect(r.text('got Bearer abc123xyz / abc123xyz / Bearer%20abc123xyz')).toBe('got [redacted] / [redacted] / [redacted]');
  });

  it('leaves short fragments and scheme words alone', () => {
    const r = new Redactor(['Bearer ab']);
    expect(r.text('Bearer ab is short')).toBe('[redacted] is short');
    expect(r.text('ab Bearer')).toBe('ab Bearer');
  });

  it('redacts the head of a secret that a truncation cut in two', () => {
    const r = new Redactor(['Bearer tok-abcdef123456']);
    expect(r.text('got tok-abcdef12…')).toBe('got [redacted]…');
    expect(r.text('a … b')).toBe('a … b');
  });

  it('redacts deep inside values', () => {
    const r = new Redactor(['tok-999999']);
    expect(r.value({ a: ['x tok-999999'], b: { c: 'tok-999999' }, n: 1 })).toEqual({ a: ['x [redacted]'], b: { c: '[redacted]' }, n: 1 });
  });
});
