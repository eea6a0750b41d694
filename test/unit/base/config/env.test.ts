/** The run's environment: read once, defaults named, a missing variable named with its fix. */
import { describe, expect, it } from 'vitest';
import { readRunEnv } from '../../../../functions/base/config/env/env.ts';

describe('the run environment', () => {
  it('takes the home region and namespace from MCP_CANARY_*, and the probe region from AWS_REGION', () => {
    // Act
    const env = readRunEnv({ MCP_CANARY_HOME_REGION: 'eu-west-1', MCP_CANARY_NAMESPACE: 'Acme/Mcp', AWS_REGION: 'ap-southeast-2' });
    // Assess
    expect(env).toEqual({ homeRegion: 'eu-west-1', namespace: 'Acme/Mcp', probeRegion: 'ap-southeast-2' });
  });

  it('defaults the namespace to McpCanary', () => {
    // Act
    const env = readRunEnv({ MCP_CANARY_HOME_REGION: 'eu-west-1', AWS_REGION: 'us-east-1' });
    // Assess
    expect(env.namespace).toBe('McpCanary');
  });

  it.each([
    [{ AWS_REGION: 'us-east-1' }, /^Environment variable MCP_CANARY_HOME_REGION is required: set it to the region that holds/],
    [{ MCP_CANARY_HOME_REGION: 'eu-west-1' }, /^Environment variable AWS_REGION is required/],
    [
      { MCP_CANARY_HOME_REGION: 'Ireland', AWS_REGION: 'us-east-1' },
      /MCP_CANARY_HOME_REGION is not an AWS region: got "Ireland"\. Set it to e\.g\. eu-west-1\./,
    ],
    [
      { MCP_CANARY_HOME_REGION: 'eu-west-1', AWS_REGION: 'us-east-1', MCP_CANARY_NAMESPACE: 'has spaces' },
      /MCP_CANARY_NAMESPACE is not a valid CloudWatch namespace/,
    ],
  ])('refuses %o with a message naming the variable', (env, message) => {
    // Act + Assess
    expect(() => readRunEnv(env)).toThrow(message);
  });
});
