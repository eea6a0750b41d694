/**
 * `-32602` (invalid params) to the canary's tools/call says "these arguments were refused": either the
 * canary's `tool.arguments` no longer fit the tool (its schema changed, or they never did), or the server
 * refuses arguments its own listing allows. The listed `inputSchema` tells which, so the detail says it:
 * - the arguments break the listed schema → the canary's configuration: inconclusive (an agent that reads
 *   the listing sends what it asks for), naming where they break it and the fix;
 * - they fit it → `server_error`: the server's validation and its listing disagree.
 */
import type { Tool } from '@modelcontextprotocol/client';
import { oneLine } from '../../base/common/redact.ts';
import type { Fault } from '../../base/common/step.ts';
import { FailureClass } from '../../base/common/verdict.ts';
import type { Exchange } from '../../base/net/exchange.ts';
import { describeRpcError } from './rpc-error.ts';
import { outputSchemaValidator } from './validator.ts';

export function invalidParams(
  fault: Fault,
  x: Exchange | undefined,
  tool: Tool | undefined,
  args: Readonly<Record<string, unknown>>,
): Fault {
  const rpc = x?.rpcError;
  if (rpc?.code !== -32602 || fault.failure !== FailureClass.serverError || !tool) return fault;
  const said = `JSON-RPC error ${describeRpcError(rpc)}`;
  let check;
  try {
    check = outputSchemaValidator.getValidator(tool.inputSchema as Parameters<typeof outputSchemaValidator.getValidator>[0])(args);
  } catch {
    return fault;
  }
  if (check.valid) {
    return {
      ...fault,
      detail: `tools/call: the server refused the canary's arguments with ${said}, though they fit the tool's inputSchema as tools/list gives it — the server's validation and its listing disagree`,
    };
  }
  return {
    ...fault,
    failure: null,
    detail: `tools/call: the server refused the canary's arguments with ${said}: they do not fit the tool's inputSchema as tools/list gives it now (${oneLine(check.errorMessage, 200)}) — the tool's schema changed, or the target's tool.arguments are wrong; update tool.arguments (--args)`,
  };
}
