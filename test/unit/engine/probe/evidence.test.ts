/**
 * The classifier's rules, a block per rule: JSON-RPC errors by code and step, -32022 in words,
 * multi-round-trip results by SdkErrorCode, TLS alerts, statuses' Retry-After and challenges, names,
 * exact numbers. Pure: no sockets (the hostile matrix proves the same on real ones).
 */
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { classifyError, classifyStatus } from '../../../../functions/engine/probe/classify.ts';
import { parseExactJson } from '../../../../functions/base/common/exact-json.ts';
import { checkAnswer, sameJson } from '../../../../functions/engine/probe/expect.ts';
import { hasLookAlike, shownName } from '../../../../functions/base/common/names.ts';
import { classifyRounds } from '../../../../functions/engine/probe/rounds.ts';
import { describeTls } from '../../../../functions/base/net/tls-wall.ts';
import type { Exchange } from '../../../../functions/base/net/wire.ts';

function exchange(over: Partial<Exchange>): Exchange {
  return {
    httpMethod: 'POST',
    rpcMethod: 'tools/call',
    status: 200,
    contentType: 'application/json',
    wwwAuthenticate: null,
    retryAfter: null,
    redirectTo: null,
    error: null,
    rpcError: null,
    bytes: 0,
    ...over,
  };
}

const STEPS = ['server/discover', 'initialize', 'tools/list', 'tools/call'] as const;
/** The JSON-RPC codes, the reserved server-error range, MCP's own and codes of no meaning. */
const CODES = [-32700, -32600, -32601, -32602, -32603, -32000, -32001, -32002, -32050, -32099, -32020, -1, 0, 7, 42000];

/**
 * A JSON-RPC error's class by its meaning: -32700, -32600 and -32020 (the request could not be read as
 * sent) → protocol on every step; on tools/call, -32603 and application codes (the tool's own execution)
 * → tool_error, every other code (no method, params, the server-defined range) → server_error; elsewhere
 * server_error.
 */
function byMeaning(rpcMethod: string, code: number): string {
  if ([-32700, -32600, -32020].includes(code)) return 'protocol';
  if (rpcMethod !== 'tools/call') return 'server_error';
  return code === -32603 || code > -32000 || code < -32768 ? 'tool_error' : 'server_error';
}

describe('row: a JSON-RPC error in a 2xx answer is classed by its meaning', () => {
  for (const rpcMethod of STEPS) {
    it.each(CODES)(`${rpcMethod}: code %i → its meaning's class, with the code and the words`, (code) => {
      const rpcError = { code, message: 'GitLab API error: 401 Unauthorized' };
      const c = classifyError(rpcMethod, new ProtocolError(code, rpcError.message), exchange({ rpcMethod, rpcError }));
      expect(c.failure).toBe(byMeaning(rpcMethod, code));
      expect(c.detail).toContain(`${code}`);
      expect(c.detail).toContain('"GitLab API error: 401 Unauthorized"');
      expect(c.retryable).toBe(false);
    });
  }

  it('says who failed on tools/call: the request as sent, the method, the arguments, the server, the tool', () => {
    const detail = (code: number) => classifyError('tools/call', undefined, exchange({ rpcError: { code, message: 'm' } })).detail;
    expect(detail(-32700)).toMatch(/did not arrive as the canary sent it.*nothing ran/);
    expect(detail(-32020)).toMatch(/-32020 \(header mismatch\).*Mcp-Method \/ Mcp-Name/);
    expect(detail(-32601)).toMatch(/does not serve tools\/call at all/);
    expect(detail(-32602)).toMatch(/refused the call's arguments before the tool ran/);
    expect(detail(-32001)).toMatch(/server-defined error: the MCP server .* not the tool/);
    expect(detail(-32603)).toMatch(/^tools\/call: the tool answered JSON-RPC error -32603/);
  });

  it('a header mismatch (-32020) names its cause in a 400 on every step, as the spec answers it', () => {
    for (const rpcMethod of STEPS) {
      const c = classifyError(
        rpcMethod,
        undefined,
        exchange({ rpcMethod, status: 400, rpcError: { code: -32020, message: 'Mcp-Name missing' } }),
      );
      expect(c).toMatchObject({ failure: 'protocol', status: 400 });
      expect(c.detail).toContain('"Mcp-Name missing"');
    }
  });

  it('names the code: -32603 internal error, -32601 method not found, -32000…-32099 server error', () => {
    const detail = (code: number) => classifyError('tools/call', undefined, exchange({ rpcError: { code, message: 'm' } })).detail;
    expect(detail(-32603)).toContain('-32603 (internal error): "m"');
    expect(detail(-32601)).toContain('-32601 (method not found)');
    expect(detail(-32042 + 1)).toContain('-32041 (server error)');
    expect(detail(7)).toContain('error 7: "m"');
  });
});

describe('row: codes that name their cause outrank the step and the HTTP status', () => {
  for (const rpcMethod of STEPS) {
    for (const status of [200, 400]) {
      it(`${rpcMethod} in a ${status}: -32021 → tool_error naming the capability; -32042 → tool_error (a URL); -32022 → revision`, () => {
        const x = (rpcError: Exchange['rpcError']) => exchange({ rpcMethod, status, rpcError });
        const missing = classifyError('s', undefined, x({ code: -32021, message: 'm', data: { requiredCapabilities: { sampling: {} } } }));
        expect(missing).toMatchObject({ failure: 'tool_error' });
        expect(missing.detail).toContain('the client capability sampling');
        expect(classifyError('s', undefined, x({ code: -32042, message: 'open it' })).detail).toMatch(/open a URL/);
        expect(classifyError('s', undefined, x({ code: -32022, message: 'u', data: { supported: ['2099-01-01'] } })).failure).toBe(
          'revision',
        );
      });
    }
  }

  it.each([400, 409, 422, 500])(
    "-32603 in an HTTP %i to tools/call is the tool's answer: tool_error, with the words and the status",
    (status) => {
      const c = classifyError(
        'tools/call',
        undefined,
        exchange({ rpcMethod: 'tools/call', status, rpcError: { code: -32603, message: 'fetch failed' } }),
      );
      expect(c).toMatchObject({ failure: 'tool_error', retryable: false, status });
      expect(c.detail).toContain('"fetch failed"');
    },
  );

  it.each([404, 408, 425, 429, 502, 503, 504])(
    '…but an HTTP %i, which says why the call never reached the tool, keeps the status class',
    (status) => {
      const c = classifyError(
        'tools/call',
        undefined,
        exchange({ rpcMethod: 'tools/call', status, rpcError: { code: -32603, message: 'fetch failed' } }),
      );
      expect(c).toMatchObject({ failure: 'http_status', retryable: status !== 404 });
      expect(c.detail).toContain('"fetch failed"');
    },
  );

  it.each([400, 500, 502])('on tools/list any other code in an HTTP %i keeps the status class', (status) => {
    const c = classifyError(
      'tools/list',
      undefined,
      exchange({ rpcMethod: 'tools/list', status, rpcError: { code: -32603, message: 'fetch failed' } }),
    );
    expect(c).toMatchObject({ failure: 'http_status', retryable: status >= 500 });
  });

  it.each([401, 403])('…and an HTTP %i stays auth', (status) => {
    expect(classifyError('tools/call', undefined, exchange({ status, rpcError: { code: -32603, message: 'no' } })).failure).toBe('auth');
  });

  it("a ProtocolError the SDK raised itself (no JSON-RPC error on the wire, or no exchange at all) is not the server's answer", () => {
    const e = new ProtocolError(-32602, 'Structured content does not match');
    expect(classifyError('tools/call', e, exchange({})).failure).toBe('protocol');
    expect(classifyError('tools/call', e, undefined).failure).toBe('protocol');
    expect(classifyError('discover', new ProtocolError(-32022, 'none in common'), undefined).failure).toBe('revision');
  });
});

describe('row: -32022 in words', () => {
  const refusal = (supported: string[]) =>
    classifyError(
      'initialize',
      undefined,
      exchange({
        rpcMethod: 'initialize',
        status: 400,
        rpcError: { code: -32022, message: 'Unsupported', data: { supported, requested: '2025-11-25' } },
      }),
    ).detail;

  it('names what the canary speaks only when the server offers none of it', () => {
    expect(refusal(['2099-01-01'])).toMatch(/supports only 2099-01-01; the canary speaks 2026-07-28, 2025-11-25/);
  });

  it('never says "the canary speaks" the revision the server supports: it refused the one requested', () => {
    const d = refusal(['2026-07-28']);
    expect(d).toMatch(/refused 2025-11-25: the server supports only 2026-07-28/);
    expect(d).not.toMatch(/the canary speaks/);
  });
});

describe('row: multi-round-trip results are read by SdkErrorCode, never by message', () => {
  const call = (over: Partial<Exchange> = {}) => exchange({ resultType: 'input_required', ...over });
  const misleading = 'asked for user input (input_required)';

  it.each([
    ['elicitation/create', 'user input (elicitation)'],
    ['sampling/createMessage', 'a model completion (sampling)'],
    ['roots/list', 'roots'],
  ])('an input request for %s the canary cannot grant → tool_error naming it', (method, words) => {
    const e = new SdkError(SdkErrorCode.CapabilityNotSupported, 'whatever', { key: 'k1', method });
    const c = classifyRounds('tools/call', e, [call({ inputRequests: [`${method} ("k1")`] })]);
    expect(c).toMatchObject({ failure: 'tool_error' });
    expect(c!.detail).toContain(words);
    expect(c!.detail).toContain(`${method} ("k1")`);
  });

  it.each(['task', 'deferred', 'x-vendor'])('an unknown resultType %s → named as itself, not "user input"', (resultType) => {
    const e = new SdkError(SdkErrorCode.UnsupportedResultType, misleading, { resultType, method: 'tools/call' });
    const c = classifyRounds('tools/call', e, [call({ resultType })]);
    expect(c).toMatchObject({ failure: 'tool_error' });
    expect(c!.detail).toContain(`resultType "${resultType}"`);
    expect(c!.detail).not.toMatch(/user input/);
  });

  it('an unknown resultType on tools/list is protocol (that step must answer complete)', () => {
    const e = new SdkError(SdkErrorCode.UnsupportedResultType, 'x', { resultType: 'task' });
    expect(classifyRounds('tools/list', e, [call({ rpcMethod: 'tools/list' })])!.failure).toBe('protocol');
  });

  it('the round cap → tool_error naming the rounds; an input_required with neither field → protocol', () => {
    const capped = new SdkError(SdkErrorCode.InputRequiredRoundsExceeded, misleading, { rounds: 10, lastResult: { requestState: 's' } });
    expect(classifyRounds('tools/call', capped, [call()])!.detail).toMatch(/after 10 rounds \(requestState echoed each time/);
    const empty = new SdkError(SdkErrorCode.InvalidResult, 'x', { violation: 'input-required-missing-both' });
    expect(classifyRounds('tools/call', empty, [call()])!.failure).toBe('protocol');
  });

  it('other SDK errors, and a CapabilityNotSupported without a method, are not its business', () => {
    expect(classifyRounds('tools/call', new SdkError(SdkErrorCode.RequestTimeout, misleading), [call()])).toBeNull();
    expect(classifyRounds('tools/call', new SdkError(SdkErrorCode.CapabilityNotSupported, misleading), [call()])).toBeNull();
    expect(classifyRounds('tools/call', new Error(misleading), [call()])).toBeNull();
  });
});

describe('row: TLS alerts from the server are about the client; its own checks have their own codes', () => {
  it.each(['SSLV3', 'TLSV1', 'TLSV13', 'SSL/TLS'])(
    'every certificate alert, on every %s spelling → "requires a client certificate"',
    (v) => {
      for (const alert of ['CERTIFICATE_REQUIRED', 'BAD_CERTIFICATE', 'CERTIFICATE_UNKNOWN', 'UNKNOWN_CA', 'CERTIFICATE_EXPIRED']) {
        expect(describeTls(`ERR_SSL_${v}_ALERT_${alert}`, null)).toMatch(/^the server requires a client certificate/);
      }
    },
  );

  it('handshake_failure is named by where it stopped', () => {
    const code = 'ERR_SSL_SSLV3_ALERT_HANDSHAKE_FAILURE';
    expect(describeTls(code, 'client_certificate')).toMatch(/requires a client certificate.*after the key exchange/);
    expect(describeTls(code, 'no_common_parameters')).toMatch(/shares no TLS version or cipher with the canary/);
    expect(describeTls(code, null)).toMatch(/refused the TLS handshake \(TLS alert handshake_failure/);
    expect(describeTls('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION', null)).toMatch(/no TLS version/);
  });

  it("the canary's checks of the server's certificate keep their code, in words", () => {
    expect(describeTls('CERT_HAS_EXPIRED', null)).toBe("TLS handshake failed (CERT_HAS_EXPIRED): the server's certificate has expired");
    expect(describeTls('DEPTH_ZERO_SELF_SIGNED_CERT', null)).toMatch(/self-signed/);
    expect(describeTls('ERR_TLS_CERT_ALTNAME_INVALID', null)).toMatch(/another name/);
  });
});

describe('row: statuses keep what on-call needs', () => {
  it.each([429, 503, 500, 502, 404])('Retry-After is kept on an HTTP %i', (status) => {
    expect(classifyStatus('discover', status, exchange({ retryAfter: '3600' })).detail).toContain('Retry-After: 3600');
  });

  it("a long 401 challenge keeps its resource_metadata URL whole, read with the SDK's parser", () => {
    const url = `https://auth.example.com/.well-known/oauth-protected-resource/${'tenants/acme/'.repeat(12)}mcp`;
    const challenge = `Bearer realm="mcp", scope="${'files:read '.repeat(20).trim()}", error="invalid_token", resource_metadata="${url}"`;
    const d = classifyStatus('discover', 401, exchange({ wwwAuthenticate: challenge })).detail;
    expect(d).toContain(`resource_metadata: ${url}`);
    expect(d).toContain('invalid_token');
  });
});

describe('row: tool names show look-alike characters as code points, in every script', () => {
  it.each([
    ['Cyrillic а', 'get_r\u0430te', 'get_r\\u0430te'],
    ['Greek ο', 'get_rate_t\u03bf', 'get_rate_t\\u03bf'],
    ['Armenian ս', 'get_\u057drate', 'get_\\u057drate'],
    ['fullwidth ｒ', 'get_\uff52ate', 'get_\\uff52ate'],
    ['zero-width joiner', 'get_\u200drate', 'get_\\u200drate'],
    ['combining acute', 'get_rate\u0301', 'get_rate\\u0301'],
    ['mathematical 𝚊 (astral)', 'get_r\u{1d68a}te', 'get_r\\u{1d68a}te'],
  ])('%s', (_script, name, shown) => {
    expect(hasLookAlike(name)).toBe(true);
    expect(shownName(name)).toBe(shown);
  });

  it('leaves ASCII names as they are', () => {
    expect(hasLookAlike('get_rate.v2-beta')).toBe(false);
    expect(shownName('get_rate.v2-beta')).toBe('get_rate.v2-beta');
  });
});

describe('row: expectJson compares integers beyond 2^53 exactly', () => {
  const answer = (id: string) => `{"jsonrpc":"2.0","id":3,"result":{"content":[],"structuredContent":{"id":${id},"rate":1.08}}}`;
  const result = { content: [], structuredContent: JSON.parse(answer('9007199254740992')).result.structuredContent };

  it('9007199254740993 expected against 9007199254740992 on the wire → fails, showing the exact digits', () => {
    expect(checkAnswer(result, { expectJson: { id: parseExactJson('9007199254740993') } }, answer('9007199254740992'))).toEqual([
      'id == 9007199254740993, got 9007199254740992',
    ]);
  });

  it('the same integer passes, a double-rounded copy of the answer notwithstanding; small numbers compare as before', () => {
    expect(checkAnswer(result, { expectJson: { id: parseExactJson('9007199254740993') } }, answer('9007199254740993'))).toEqual([]);
    expect(checkAnswer(result, { expectJson: { rate: 1.08 } }, answer('1'))).toEqual([]);
    expect(sameJson(1, 1n)).toBe(true);
    expect(sameJson(9007199254740992, 9007199254740993n)).toBe(false);
    expect(sameJson(1.5, 1n)).toBe(false);
    expect(sameJson({ a: [1, 2n ** 64n] }, { a: [1, 2n ** 64n] })).toBe(true);
  });

  it("without the wire's text it falls back to the SDK's parse", () => {
    expect(checkAnswer(result, { expectJson: { rate: 1.08 } }, null)).toEqual([]);
    expect(checkAnswer(result, { expectJson: { rate: 1.08 } }, 'not json')).toEqual([]);
  });

  it("an assertion detail keeps 300 characters of the answer: the server's own message survives", () => {
    const text = `${'.'.repeat(150)} upstream answered HTTP 401: API key revoked (request id 7f3a)`;
    const [failed] = checkAnswer({ content: [{ type: 'text', text }] }, { expectText: 'EURUSD', expectJson: {} });
    expect(failed).toContain('API key revoked (request id 7f3a)');
  });
});
