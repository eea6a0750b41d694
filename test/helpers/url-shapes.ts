/**
 * Every URL shape the docs allow (docs/config.md, "How a URL is shown"): how each is shown, and the
 * parts of it that are secret and must appear in no output. Shared by the unit test of shown-url.ts and
 * the tests that read the CLI's and the stacks' outputs.
 */
export const URL_SHAPES: ReadonlyArray<{
  readonly shape: string;
  readonly url: string;
  readonly shown: string;
  readonly secrets: string[];
}> = [
  {
    shape: 'a boolean value',
    url: 'https://mcp.example.com/mcp?read_only=true',
    shown: 'https://mcp.example.com/mcp?read_only=***',
    secrets: [],
  },
  { shape: 'a bare flag', url: 'https://mcp.example.com/mcp?verbose', shown: 'https://mcp.example.com/mcp?verbose', secrets: [] },
  {
    shape: 'numbers',
    url: 'https://mcp.example.com/mcp?limit=10&offset=1000000',
    shown: 'https://mcp.example.com/mcp?limit=***&offset=***',
    secrets: ['1000000'],
  },
  {
    shape: 'repeated keys',
    url: 'https://mcp.example.com/mcp?scope=profile&scope=sk-rep-77aa91c3e0',
    shown: 'https://mcp.example.com/mcp?scope=***&scope=***',
    secrets: ['profile', 'sk-rep-77aa91c3e0'],
  },
  { shape: 'empty values', url: 'https://mcp.example.com/mcp?a=&b=&&c', shown: 'https://mcp.example.com/mcp?a=&b=&c', secrets: [] },
  {
    shape: 'encoded characters',
    url: 'https://mcp.example.com/m%20cp?q=sk%2Fenc%3D42x9Zq&na%C3%AFve=1',
    shown: 'https://mcp.example.com/m%20cp?q=***&na%C3%AFve=***',
    secrets: ['sk/enc=42x9Zq', 'sk%2Fenc%3D42x9Zq'],
  },
  {
    shape: 'userinfo',
    url: 'https://alice:pw-5e1c99d2@mcp.example.com/mcp',
    shown: 'https://***@mcp.example.com/mcp',
    secrets: ['pw-5e1c99d2'],
  },
  {
    shape: 'a fragment',
    url: 'https://mcp.example.com/mcp?x=1#access_token=frag-0f3b7a',
    shown: 'https://mcp.example.com/mcp?x=***',
    secrets: [],
  },
  {
    shape: 'an IPv6 host and a port',
    url: 'http://[::1]:8787/mcp?token=t-ipv6-6d41',
    shown: 'http://[::1]:8787/mcp?token=***',
    secrets: ['t-ipv6-6d41'],
  },
  {
    shape: 'a key in the path and a key as a flag',
    url: 'https://mcp.example.com/v1/sk-live-0a1b2c3d4e/mcp?pk_test_9f8e7d6c5b',
    shown: 'https://mcp.example.com/v1/***/mcp?***',
    secrets: ['sk-live-0a1b2c3d4e', 'pk_test_9f8e7d6c5b'],
  },
  { shape: 'a default port and no path', url: 'HTTPS://MCP.Example.com:443?a=b', shown: 'https://mcp.example.com/?a=***', secrets: [] },
];
