/** The process entry: wires `main` to the real stdout/stderr and exit code. */
import { readFileSync } from 'node:fs';
import { redactionValues } from '../auth/secrets.ts';
import { parseHeaders } from './args.ts';
import { guardConsole, main } from './main.ts';
import { Redactor } from '../redact.ts';

const argv = process.argv.slice(2);
// Header values from the flags are secrets: anything a library prints goes through the redactor.
const headerValues = argv.flatMap((a, i) => (argv[i - 1] === '--header' ? [a] : a.startsWith('--header=') ? [a.slice(9)] : []));
let secrets: string[] = [];
try {
  secrets = Object.values(parseHeaders(headerValues));
} catch {
  // main() reports the malformed header itself.
}
// OAuth secrets named by flags: the env var's value and the key file's body.
const flagValue = (flag: string) => argv.flatMap((a, i) => (argv[i - 1] === flag ? [a] : a.startsWith(`${flag}=`) ? [a.slice(flag.length + 1)] : []))[0];
const secretEnv = flagValue('--oauth-client-secret-env');
const keyFile = flagValue('--oauth-private-key-file');
let privateKey: string | undefined;
try {
  privateKey = keyFile ? readFileSync(keyFile, 'utf8') : undefined;
} catch {
  // main() reports the unreadable file itself.
}
secrets.push(...redactionValues({ clientSecret: secretEnv ? process.env[secretEnv] : undefined, privateKey }));
const redactor = new Redactor(secrets);
guardConsole(redactor);

const code = await main(argv, {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(redactor.text(s)),
});
process.exitCode = code;
