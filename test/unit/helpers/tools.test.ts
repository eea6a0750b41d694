/** The test-tool gate: found on the PATH, or named with its install line; CI fails, a workstation skips. */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findTool, gate, missingTools, requireTool, TOOLS } from '../../helpers/tools.ts';

const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-tools-'));
const empty = mkdtempSync(join(tmpdir(), 'mcp-canary-no-tools-'));
afterAll(() => [dir, empty].forEach((d) => rmSync(d, { recursive: true, force: true })));
writeFileSync(join(dir, 'moto_server'), '#!/bin/sh\nexit 0\n');
chmodSync(join(dir, 'moto_server'), 0o755);
writeFileSync(join(dir, 'cfn-lint'), 'not executable');

describe('findTool', () => {
  it('finds an executable on the PATH, in PATH order', () => {
    expect(findTool('moto_server', [empty, dir].join(delimiter))).toBe(join(dir, 'moto_server'));
  });

  it('does not take a file that is not executable, nor an empty PATH entry for the working directory', () => {
    expect(findTool('cfn-lint', `${delimiter}${dir}`)).toBeUndefined();
  });
});

describe('missingTools and requireTool', () => {
  it('name each missing tool with what it is for and its install line', () => {
    expect(missingTools(['moto_server', 'cfn-lint', 'python3'], dir)).toBe(
      'cfn-lint (linting synthesized templates) is not on the PATH: install it with `pip install cfn-lint`; ' +
        'python3 (a listener that never completes the TCP handshake) is not on the PATH: install it with `apt-get install python3 (macOS: brew install python)`',
    );
    expect(missingTools(['moto_server'], dir)).toBeUndefined();
  });

  it('requireTool throws the install line instead of a spawn ENOENT', () => {
    expect(() => requireTool('moto_server', empty)).toThrow(
      'moto_server (AWS wire calls (Python moto)) is not on the PATH: install it with `pip install "moto[server]"`',
    );
    expect(requireTool('moto_server', dir)).toBe(join(dir, 'moto_server'));
  });

  it('has an install line for every tool the suite names (chromium for a page test too)', () => {
    expect(Object.keys(TOOLS).sort()).toEqual(['cfn-lint', 'chromium', 'ip', 'moto_server', 'openssl', 'python3', 'unshare']);
    for (const t of Object.values(TOOLS)) expect(t.install).toMatch(/^(pip|apt-get) install /);
  });
});

describe('gate', () => {
  it('runs when every tool is there', () => {
    expect(gate(['moto_server'], { PATH: dir })).toEqual({ run: true });
  });

  it('fails in CI, naming the install line: a CI machine must have the tools', () => {
    expect(gate(['moto_server', 'cfn-lint'], { PATH: dir, CI: 'true' })).toEqual({
      run: false,
      fail: true,
      reason: 'cfn-lint (linting synthesized templates) is not on the PATH: install it with `pip install cfn-lint`',
    });
  });

  it('skips on a workstation, with the same reason for the skip title', () => {
    expect(gate(['cfn-lint'], { PATH: empty })).toMatchObject({
      run: false,
      fail: false,
      reason: expect.stringContaining('pip install cfn-lint'),
    });
  });
});

describe("CONTRIBUTING.md's Set up", () => {
  it('names every tool with its install line', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../../CONTRIBUTING.md'), 'utf8');
    const setUp = doc.slice(doc.indexOf('## Set up'), doc.indexOf('\n## ', doc.indexOf('## Set up') + 1));
    for (const [tool, { install }] of Object.entries(TOOLS)) {
      const row = setUp.split('\n').find((l) => l.startsWith(`| \`${tool}\` |`));
      expect(row, tool).toBeDefined();
      expect(row, tool).toContain(`\`${install.split(' (')[0]}\``);
    }
  });
});
