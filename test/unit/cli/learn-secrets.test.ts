/**
 * What only main() can know — a config file's header values, stored credentials once read — reaches the
 * process's own redaction (bin.ts's stream and console guard) through Io.learnSecrets, before any output.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../functions/cli/main.ts';
import { freePort } from '../../helpers/moto.ts';

const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-learn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('main and the process redactor', () => {
  it("hands a config file's header values to learnSecrets before it prints the verdict", async () => {
    const key = 'sk_live_9f8e7d6c5b4a3210';
    const file = join(dir, 'fleet.json');
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    writeFileSync(file, JSON.stringify({ homeRegion: 'us-east-1', targets: [{ name: 'rates', url, headers: { 'X-Api-Key': key } }] }));
    const events: string[] = [];
    const learned: string[] = [];
    const code = await main(['check', '--config', file, '--json'], {
      stdout: () => events.push('stdout'),
      stderr: () => events.push('stderr'),
      learnSecrets: (values) => {
        learned.push(...values);
        events.push('learn');
      },
    });
    expect(code).toBe(1);
    expect(learned).toContain(key);
    expect(events[0]).toBe('learn');
  });
});
