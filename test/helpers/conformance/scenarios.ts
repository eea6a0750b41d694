/** How each conformance scenario is run as a canary check: the flags beyond `check <url>`. */

/** Flags per scenario, beyond `check <url>`; an unknown scenario gets the plain check. */
export const SCENARIO_FLAGS: Readonly<Record<string, readonly string[]>> = {
  initialize: [],
  tools_call: ['--tool', 'add_numbers', '--args', '{"a":2,"b":3}', '--allow-unsafe-tool', '--expect-text', 'is 5'],
  'sse-retry': ['--tool', 'test_reconnection', '--allow-unsafe-tool', '--expect-text', 'Reconnection test completed'],
  // The one valid tool among eleven the client must drop for their invalid x-mcp-header annotations.
  'http-invalid-tool-headers': ['--tool', 'valid_tool', '--args', '{"region":"us-west1"}', '--allow-unsafe-tool'],
};
