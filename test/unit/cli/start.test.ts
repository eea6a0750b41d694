/**
 * The entry answers some invocations with the help text before the engine loads; `main` must give
 * the same answer for each of them, or the fast path would change what the command does.
 */
import { describe, expect, it } from 'vitest';
import { asksForHelp, HELP } from '../../../functions/cli/help.ts';
import { main } from '../../../functions/cli/main.ts';

const answered = [[], ['--help'], ['-h'], ['check', '--help'], ['check', '-h']];
const notAnswered = [
  ['check'],
  ['check', 'https://mcp.example.com/mcp'],
  ['--json'],
  ['check', '--help', 'extra'],
  ['--version'],
  ['check --help'],
];

async function mainSays(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

describe('the entry answers --help before loading the engine', () => {
  it.each(answered)('answers %j the way main does: the help text, exit 0', async (...argv) => {
    expect(asksForHelp(argv)).toBe(true);
    expect(await mainSays(argv)).toEqual({ code: 0, stdout: `${HELP}\n`, stderr: '' });
  });

  it.each(notAnswered)('leaves %j to main', (...argv) => {
    expect(asksForHelp(argv)).toBe(false);
  });
});
