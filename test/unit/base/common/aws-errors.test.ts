/**
 * The AWS error boundary over the errors the SDK really raises: an SSM client (maxAttempts 1) against a
 * loopback server that answers in AWS JSON 1.1 as SSM does (status and `__type`), so the SDK's own
 * deserializer builds each service error (ParameterNotFound, a ThrottlingException, a 500…); a closed
 * port, a server that never answers and aborted calls for the network kinds. The few the wire here
 * cannot produce are built as the SDK builds them: the credential chain's CredentialsProviderError, the
 * handler's connection timeout, a modelled KMSAccessDeniedException (a 502 that is still a denial).
 * One row per kind; each asserts the exact kind, so a rule that moves fails its row.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { GetParameterCommand, ParameterNotFound, SSMClient } from '@aws-sdk/client-ssm';
import { KMSAccessDeniedException } from '@aws-sdk/client-lambda';
import { CloudWatchServiceException } from '@aws-sdk/client-cloudwatch';
import { CredentialsProviderError } from '@smithy/core/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwsErrorKind, awsFailure, awsWords, MESSAGE_MAX, type AwsFailure } from '../../../../functions/base/common/aws-errors.ts';

/** What the fake SSM answers next: an HTTP status and an AWS JSON error body. */
let answer: { status: number; type: string; message: string } = { status: 200, type: '', message: '' };
let ssmServer: HttpServer;
let silent: TcpServer;
const held: Socket[] = [];
let closedPort: number;

const credentials = { accessKeyId: 'testing', secretAccessKey: 'testing' };
const ssmAt = (endpoint: string, requestHandler?: { requestTimeout?: number; throwOnRequestTimeout?: boolean; socketTimeout?: number }) =>
  new SSMClient({ region: 'eu-west-1', endpoint, credentials, maxAttempts: 1, ...(requestHandler ? { requestHandler } : {}) });
const portOf = (s: HttpServer | TcpServer) => (s.address() as AddressInfo).port;

/** The error one GetParameter call ends in. */
async function failed(client: SSMClient, abortSignal?: AbortSignal): Promise<unknown> {
  try {
    await client.send(new GetParameterCommand({ Name: '/mcp-canary/x' }), abortSignal ? { abortSignal } : {});
  } catch (e) {
    return e;
  }
  throw new Error('the call succeeded');
}

/** The fake SSM answering `status` with `__type` (as AWS JSON 1.1 services do). */
async function answered(status: number, type: string, message = `${type} from the fake`): Promise<unknown> {
  answer = { status, type, message };
  return failed(ssmAt(`http://127.0.0.1:${portOf(ssmServer)}`));
}

beforeAll(async () => {
  ssmServer = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res
        .writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': 'fake' })
        .end(JSON.stringify({ __type: answer.type, message: answer.message }));
    });
  });
  await new Promise<void>((resolve) => ssmServer.listen(0, '127.0.0.1', resolve));
  // Accepts, reads, never answers.
  silent = createTcpServer((socket) => {
    held.push(socket);
    socket.resume();
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  // A port that was free a moment ago, and is closed now: connecting is refused.
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = portOf(probe);
  await new Promise((resolve) => probe.close(resolve));
});

afterAll(async () => {
  for (const s of held) s.destroy();
  await new Promise((resolve) => silent?.close(resolve));
  await new Promise((resolve) => ssmServer?.close(resolve));
});

describe('every kind, from the errors the SDK raises', () => {
  it.each<[string, () => Promise<unknown>, AwsErrorKind, Partial<AwsFailure>]>([
    [
      'a ThrottlingException answer (the SDK’s throttling codes)',
      () => answered(400, 'ThrottlingException', 'Rate exceeded'),
      AwsErrorKind.throttled,
      { name: 'ThrottlingException', status: 400, message: 'Rate exceeded' },
    ],
    ['a 429 with a code nobody listed', () => answered(429, 'SlowDownPlease'), AwsErrorKind.throttled, { status: 429 }],
    [
      'AccessDeniedException',
      () => answered(400, 'AccessDeniedException', 'User: arn:aws:iam::123456789012:user/x is not authorized to perform: ssm:GetParameter'),
      AwsErrorKind.denied,
      { name: 'AccessDeniedException', status: 400 },
    ],
    [
      'a KMS key the caller may not use, though a 502 (Lambda’s modelled KMSAccessDeniedException)',
      async () => new KMSAccessDeniedException({ message: 'Lambda was unable to decrypt', $metadata: { httpStatusCode: 502 } }),
      AwsErrorKind.denied,
      { name: 'KMSAccessDeniedException', status: 502 },
    ],
    [
      'ParameterNotFound (SSM’s modelled exception)',
      () => answered(400, 'ParameterNotFound', ''),
      AwsErrorKind.notFound,
      { name: 'ParameterNotFound', status: 400 },
    ],
    [
      'ResourceNotFoundException (Secrets Manager’s, Logs’ code)',
      () => answered(400, 'ResourceNotFoundException'),
      AwsErrorKind.notFound,
      { name: 'ResourceNotFoundException' },
    ],
    [
      'no credentials (the provider chain’s CredentialsProviderError)',
      async () => new CredentialsProviderError('Could not load credentials from any providers', { tryNextLink: false }),
      AwsErrorKind.credentials,
      { name: 'CredentialsProviderError', status: undefined },
    ],
    [
      'a refused connection (the handler renames it TimeoutError, keeping ECONNREFUSED)',
      () => failed(ssmAt(`http://127.0.0.1:${closedPort}`)),
      AwsErrorKind.notConnected,
      { status: undefined },
    ],
    [
      'the connection timeout (the handler’s TimeoutError with no code)',
      async () =>
        Object.assign(
          new Error(
            '@smithy/node-http-handler - the request socket did not establish a connection with the server within the configured timeout of 1000 ms.',
          ),
          { name: 'TimeoutError' },
        ),
      AwsErrorKind.notConnected,
      { name: 'TimeoutError' },
    ],
    [
      'the request timeout of a server that never answers',
      () => failed(ssmAt(`http://127.0.0.1:${portOf(silent)}`, { requestTimeout: 200, throwOnRequestTimeout: true })),
      AwsErrorKind.timeout,
      {
        name: 'TimeoutError',
        status: undefined,
        message: '@smithy/node-http-handler - [ERROR] a request has exceeded the configured 200 ms requestTimeout.',
      },
    ],
    [
      'the socket’s inactivity timeout (a TimeoutError with no code)',
      () => failed(ssmAt(`http://127.0.0.1:${portOf(silent)}`, { socketTimeout: 200 })),
      AwsErrorKind.timeout,
      { name: 'TimeoutError', status: undefined },
    ],
    [
      'the caller’s AbortSignal.timeout',
      () => failed(ssmAt(`http://127.0.0.1:${portOf(silent)}`), AbortSignal.timeout(200)),
      AwsErrorKind.timeout,
      { name: 'AbortError' },
    ],
    [
      'a 500 (SSM’s InternalServerError)',
      () => answered(500, 'InternalServerError'),
      AwsErrorKind.server,
      { name: 'InternalServerError', status: 500 },
    ],
    [
      'a 503 nobody modelled',
      async () =>
        new CloudWatchServiceException({ name: 'ServiceUnavailable', $fault: 'server', $metadata: { httpStatusCode: 503 }, message: '' }),
      AwsErrorKind.server,
      { status: 503, message: '' },
    ],
    [
      'a connection reset (transient to the SDK)',
      async () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
      AwsErrorKind.server,
      {},
    ],
    [
      'a ValidationException',
      () => answered(400, 'ValidationException', '1 validation error detected'),
      AwsErrorKind.client,
      { name: 'ValidationException', status: 400 },
    ],
    [
      'the caller’s own abort',
      async () => {
        const cut = new AbortController();
        const pending = failed(ssmAt(`http://127.0.0.1:${portOf(silent)}`), cut.signal);
        setTimeout(() => cut.abort(), 50);
        return pending;
      },
      AwsErrorKind.unknown,
      { name: 'AbortError' },
    ],
    ['a value that is no error at all', async () => 'boom', AwsErrorKind.unknown, { name: 'Error', message: 'boom', status: undefined }],
  ])('%s → %s', async (_what, raise, kind, facts) => {
    // Prepare
    const error = await raise();

    // Act
    const failure = awsFailure(error);

    // Assess
    expect(failure).toMatchObject({ kind, ...facts });
  });
});

describe('the words', () => {
  it('keeps the SDK’s name and the service’s status, and its message on one capped line', async () => {
    // Prepare
    const long = `line one\n${'x'.repeat(400)}`;
    const error = new ParameterNotFound({ message: long, $metadata: { httpStatusCode: 400 } });

    // Act
    const failure = awsFailure(error);

    // Assess
    expect(failure.name).toBe('ParameterNotFound');
    expect(failure.status).toBe(400);
    expect(failure.message).not.toContain('\n');
    expect(failure.message.length).toBe(MESSAGE_MAX);
    expect(failure.message.startsWith('line one xxx')).toBe(true);
    expect(awsWords(failure, 20)).toBe('ParameterNotFound: line one xxxxxxxxxx…');
    expect(awsWords(awsFailure(new ParameterNotFound({ message: '', $metadata: {} })))).toBe('ParameterNotFound');
  });
});
