/** Reading a config file: a broken one is named by its place, never quoted (a CLI config may hold a header value). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfigFile } from '../../functions/config/load.ts';

const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('readConfigFile', () => {
  it('names a JSON syntax error by line and column, and quotes nothing of the file', async () => {
    const file = join(dir, 'fleet.json');
    writeFileSync(file, '{\n  "targets": [{ "headers": { "Authorization": "Bearer sk-live-0123456789abcdef" } x ]\n}\n');
    const error = await readConfigFile(file).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toMatch(
      /^--config .*fleet\.json: is not valid JSON \(.*fleet\.json:2:83: a comma "," or "}" is missing here\)\. Fix the syntax\.$/,
    );
    expect(error?.message).not.toContain('sk-live');
    expect(error?.cause).toBeUndefined();
  });

  it('says which variable named a file the CDK app could not read', async () => {
    await expect(readConfigFile(join(dir, 'missing.json'), 'MCP_CANARY_CONFIG=missing.json')).rejects.toThrow(
      /^MCP_CANARY_CONFIG=missing\.json: cannot read the file \(ENOENT\)/,
    );
  });
});
