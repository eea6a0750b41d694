/** Reading a config file: a broken one is named by its place, never quoted (a CLI config may hold a header value). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readConfigFile } from '../../../../functions/base/config/load/load.ts';
import { withoutTokens } from '../../../../functions/base/config/load/module-place.ts';

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

  it('names a TS syntax error by file:line:column and what is wrong, quoting no token of it', async () => {
    const file = join(dir, 'fleet.mts');
    writeFileSync(
      file,
      "export default {\n  homeRegion: 'us-east-1',\n  targets: [{ name: 'a' headers: { A: 'sk-live-0123456789abcdef' } }],\n};\n",
    );
    const error = await readConfigFile(file).then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).toBe(`--config ${file}: has a syntax error (${file}:3:25: Expected "}" but found a name). Fix the syntax.`);
  });

  it('says to save a UTF-16 file as UTF-8, instead of a syntax error at every character', async () => {
    const file = join(dir, 'utf16.json');
    writeFileSync(file, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"homeRegion": "us-east-1"}', 'utf16le')]));
    await expect(readConfigFile(file)).rejects.toThrow(
      `--config ${file}: is UTF-16 text (it starts with a UTF-16 byte-order mark). Save it as UTF-8.`,
    );
  });

  it('refuses a field named twice, which JSON.parse would settle silently by keeping the last', async () => {
    const file = join(dir, 'twice.json');
    writeFileSync(file, '{\n  "homeRegion": "us-east-1",\n  "schedule": "rate(1 minute)",\n  "schedule": "rate(5 minutes)"\n}\n');
    await expect(readConfigFile(file)).rejects.toThrow(
      `--config ${file}: names a field twice (${file}:4:3: the field "schedule" is given twice in one object (first at 3:3): JSON would keep the last one silently, so remove one).`,
    );
  });

  it('reads an editor byte-order mark as nothing', async () => {
    const file = join(dir, 'bom.json');
    writeFileSync(file, '\uFEFF{"homeRegion": "us-east-1", "targets": []}');
    await expect(readConfigFile(file)).resolves.toEqual({ homeRegion: 'us-east-1', targets: [] });
  });
});

describe("a loader's message without the file's tokens", () => {
  it.each([
    ['Expected "}" but found "url"', 'Expected "}" but found a name'],
    ['Expected ";" but found "\\"Bearer sk_live\\""', 'Expected ";" but found a string'],
    ["Unexpected identifier 'sk_live_123'", 'Unexpected identifier a name'],
    ['Unexpected "=>"', 'Unexpected "=>"'],
    ['Expected "export" but found "42"', 'Expected "export" but found a number'],
    ['Unterminated string literal', 'Unterminated string literal'],
  ])('%s → %s', (message, safe) => {
    expect(withoutTokens(message)).toBe(safe);
  });
});
