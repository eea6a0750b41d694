/** The rule that reads an ordinary tool answer for an upstream's refused credential (probe/upstream-credential.ts). */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { MAX_UPSTREAM_ANSWER_CHARS, upstreamCredentialWords } from '../../../../functions/engine/probe/upstream-credential.ts';

const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });

describe('an ordinary answer that reads like a refused upstream credential', () => {
  it.each([
    ['401 Unauthorized'],
    ['GitLab API error: 401 Unauthorized'],
    ['Upstream said: 401 - Unauthorized'],
    ['Request failed with status code 401'],
    ['HTTP 401 from api.example.com'],
    ['Error: Unauthorized (401)'],
    ['Invalid API key provided: sk-****'],
    ['invalid api_key'],
    ['The access token expired'],
    ['Your token has expired, please sign in again'],
    ['API key has been revoked'],
    ['Credentials are invalid'],
    ['error: invalid_token'],
    ['{"error":"invalid_grant","error_description":"refresh token revoked"}'],
    ['Bad credentials'],
    ['Authentication failed for user canary'],
    ['You are not authenticated'],
    ['Expired token, reauthenticate'],
    ['{"error":{"code":401,"message":"Request had invalid authentication"}}'],
    ['{"statusCode":"401"}'],
  ])('%s → warns, quoting the words', (answer) => {
    const words = upstreamCredentialWords(text(answer));
    expect(words).not.toBeNull();
    expect(answer).toContain(words!.replace(/^…|…$/g, '').slice(0, 10));
  });

  it('reads a 401 status in structuredContent at any depth', () => {
    expect(upstreamCredentialWords({ content: [], structuredContent: { upstream: { response: { status: 401 } } } })).toMatch(/401/);
    expect(upstreamCredentialWords({ content: [], structuredContent: { upstream: { httpStatus: 401 } } })).toBe(
      'a JSON error with status 401',
    );
    expect(upstreamCredentialWords(text('[{"errors":[{"HttpCode":"401"}]}]'))).toBe('a JSON error with status 401');
  });

  it.each([
    ['EURUSD 1.401'],
    ['rate: 401.25'],
    ['{"rate":401,"pair":"EURUSD"}'],
    ['{"count":401}'],
    ['Token count: 401'],
    ['The tokenizer split the input into 12 tokens'],
    ['Authorization header forwarded'],
    [''],
  ])('%s → no warning', (answer) => {
    expect(upstreamCredentialWords(text(answer))).toBeNull();
  });

  it('does not read a long answer: a page that mentions a 401 in passing is data', () => {
    const page = `${'Lorem ipsum dolor sit amet. '.repeat(MAX_UPSTREAM_ANSWER_CHARS / 20)} The docs explain 401 Unauthorized.`;
    expect(upstreamCredentialWords(text(page))).toBeNull();
  });
});
