/**
 * The OpenTelemetry semantic conventions the export follows, in one place: the MCP conventions of
 * semantic-conventions **v1.41.0** (`docs/gen-ai/mcp.md`, status Development; v1.42.0 moved them unchanged
 * to open-telemetry/semantic-conventions-genai), and what they say a request becomes — its client span's
 * name and attributes, its `error.type`, the `mcp.client.operation.duration` histogram's buckets.
 *
 * Copied, not imported: `@opentelemetry/semantic-conventions` keeps conventions in Development behind its
 * `incubating` entry point, which may break in a minor release, and its README asks instrumentations to
 * copy what they use. Its 1.45 marks the MCP names deprecated-for-moved, not changed.
 */
import type { Attributes } from '@opentelemetry/api';

/** What these rules read of a request (requests.ts's `RequestRecord` has it all). */
export interface Operation {
  readonly httpMethod: string;
  readonly rpcMethod?: string | undefined;
  readonly rpcId?: string | undefined;
  readonly toolName?: string | undefined;
  /** The protocol version the request carried, when it said. */
  readonly protocolVersion?: string | undefined;
  readonly serverAddress: string;
  readonly serverPort: number;
  readonly status?: number | undefined;
  readonly error?: string | undefined;
  readonly rpcError?: string | undefined;
  readonly toolError?: true | undefined;
}

/** The conventions' version, and the schema URL the tracer and meter declare (OTLP `ScopeSpans.schemaUrl`). */
export const SEMCONV_VERSION = '1.41.0';
export const SCHEMA_URL = `https://opentelemetry.io/schemas/${SEMCONV_VERSION}`;

export const MCP_CLIENT_OPERATION_DURATION = 'mcp.client.operation.duration';

/**
 * The conventions' `ExplicitBucketBoundaries` advice for `mcp.client.operation.duration`, in seconds. Without
 * it the SDK uses its default boundaries, which are milliseconds (0, 5, 10, 25 … 10000): every request, a
 * few seconds at most, then falls in the first bucket or two and no percentile can be read.
 */
export const MCP_DURATION_BUCKETS_S: readonly number[] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** `error.type` when a `CallToolResult` came with `isError: true` (the conventions' own value). */
export const TOOL_ERROR = 'tool_error';
/** `error.type`'s fallback (a well-known value): a JSON-RPC error code that is not an integer. */
export const OTHER = '_OTHER';

/** How the operation failed, as `error.type` and a few words for the span status; undefined when it did not. */
export interface OperationError {
  readonly type: string;
  readonly words: string;
}

/**
 * A request's `error.type`, in the conventions' order: no answer at all (a socket code, `timeout`); a
 * JSON-RPC error (its code, even on an HTTP 4xx: "SHOULD be set to the string representation of the
 * JSON-RPC error code, if one is returned"); a tool's `isError` (`tool_error`); an HTTP error's status;
 * a 2xx answer that never carried the response (`no_answer`, `wrong_id`, `truncated`, `too_large`).
 *
 * The span status description is these words, not the server's `JSONRPCError.message` the conventions
 * suggest: the server's words may quote anything, and the request log is not redacted (the step span
 * carries the verdict's redacted detail).
 */
export function operationError(r: Operation): OperationError | undefined {
  if (r.status === undefined && r.error) return { type: r.error, words: `no answer: ${r.error}` };
  if (r.rpcError) return { type: r.rpcError, words: `JSON-RPC error ${r.rpcError}` };
  if (r.toolError) return { type: TOOL_ERROR, words: 'the tool answered isError' };
  if (r.status !== undefined && r.status >= 400) return { type: String(r.status), words: `HTTP ${r.status}` };
  if (r.error) return { type: r.error, words: `the answer did not carry the response: ${r.error}` };
  return undefined;
}

/**
 * The attributes the conventions give an MCP client operation, for its span and its duration point alike
 * (so a metric can be filtered by what a trace shows): method, tool, request id (spans only: it is
 * unbounded), error, the JSON-RPC error code, protocol version (the request's own header, else the run's
 * negotiated `revision`: a 2025 server's refused `server/discover` was a 2026-07-28 request), server, transport.
 */
export function operationAttributes(r: Operation, revision: string | null, forSpan: boolean): Attributes {
  const failed = operationError(r);
  return {
    ...(r.rpcMethod ? { 'mcp.method.name': r.rpcMethod } : {}),
    ...(r.toolName ? { 'gen_ai.tool.name': r.toolName } : {}),
    ...(r.rpcMethod === 'tools/call' ? { 'gen_ai.operation.name': 'execute_tool' } : {}),
    ...(forSpan && r.rpcId ? { 'jsonrpc.request.id': r.rpcId } : {}),
    ...(failed ? { 'error.type': failed.type } : {}),
    ...(r.rpcError ? { 'rpc.response.status_code': r.rpcError } : {}),
    ...((r.protocolVersion ?? revision) ? { 'mcp.protocol.version': r.protocolVersion ?? revision } : {}),
    'server.address': r.serverAddress,
    'server.port': r.serverPort,
    'network.protocol.name': 'http',
    'network.transport': 'tcp',
  };
}

/** The client span's name: `{mcp.method.name} {gen_ai.tool.name}` for a tool call, the method alone otherwise. */
export function operationSpanName(r: Operation): string {
  if (!r.rpcMethod) return r.httpMethod;
  return r.toolName ? `${r.rpcMethod} ${r.toolName}` : r.rpcMethod;
}
