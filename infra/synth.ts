/**
 * `npm run synth`: `cdk synth --quiet` (arguments passed on), exiting 2 on a config error as
 * `mcp-canary check --config` does, so a script tells a bad config from a broken synth. The CDK CLI
 * itself exits 1 whatever its app exits with ("Subprocess exited with error 2"); the app (app.ts) marks
 * a config error in the file this names, and this turns the mark into the exit code. `npx cdk synth`
 * still works: it prints the same one-line message and exits 1.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

/** The file app.ts creates when the config is refused. */
export const CONFIG_ERROR_FILE_ENV = 'MCP_CANARY_CONFIG_ERROR_FILE';
export const CONFIG_ERROR_EXIT = 2;

async function main(args: readonly string[]): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-synth-'));
  const marker = join(dir, 'config-error');
  try {
    const cdk = createRequire(import.meta.url).resolve('aws-cdk/bin/cdk');
    const child = spawn(process.execPath, [cdk, 'synth', '--quiet', ...args], {
      stdio: ['inherit', 'inherit', 'pipe'],
      env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true', [CONFIG_ERROR_FILE_ENV]: marker },
    });
    // The app has printed the config error in one line; the CLI's "Subprocess exited with error 2" after it is noise.
    const lines = createInterface({ input: child.stderr });
    lines.on('line', (line) => {
      if (!(existsSync(marker) && /Subprocess exited with error \d+$/.test(line))) process.stderr.write(`${line}\n`);
    });
    const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? 1)));
    return existsSync(marker) ? CONFIG_ERROR_EXIT : code;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exit(await main(process.argv.slice(2)));
