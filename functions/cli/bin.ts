/** The process entry: wires `main` to the real stdout/stderr and exit code. */
import { readFileSync } from 'node:fs';
import { redactionValues } from '../base/config/load/oauth-secrets.ts';
import { parseHeaders } from './args.ts';
import { ExitCode, guardConsole, main } from './main.ts';
import { jsonText } from './print-json.ts';
import { oneLine, Redactor, secretsOf } from '../base/common/redact.ts';

const argv = process.argv.slice(2);
// Header values and everything secret in a URL (userinfo, query values, a key in the path) are
// registered before anything runs: whatever a library prints goes through the redactor.
const headerValues = argv.flatMap((a, i) => (argv[i - 1] === '--header' ? [a] : a.startsWith('--header=') ? [a.slice(9)] : []));
let headers: Record<string, string> = {};
try {
  headers = parseHeaders(headerValues);
} catch {
  // main() reports the malformed header itself.
}
const urls = argv.filter((a) => /^https?:\/\//i.test(a) || /^--health-url=/.test(a)).map((a) => a.replace(/^--health-url=/, ''));
const secrets = [...secretsOf({ headers }), ...urls.flatMap((url) => secretsOf({ url }))];
// OAuth secrets named by flags: the env var's value and the key file's body.
const flagValue = (flag: string) =>
  argv.flatMap((a, i) => (argv[i - 1] === flag ? [a] : a.startsWith(`${flag}=`) ? [a.slice(flag.length + 1)] : []))[0];
const secretEnv = flagValue('--oauth-client-secret-env');
const keyFile = flagValue('--oauth-private-key-file');
let privateKey: string | undefined;
try {
  privateKey = keyFile ? readFileSync(keyFile, 'utf8') : undefined;
} catch {
  // main() reports the unreadable file itself.
}
secrets.push(...redactionValues({ clientSecret: secretEnv ? process.env[secretEnv] : undefined, privateKey }));
let redactor = new Redactor(secrets);
guardConsole(redactor);

let code: number;
try {
  code = await main(argv, {
    stdout: (s) => process.stdout.write(redactor.text(s)),
    // A document is walked, never replaced in its serialized text (print-json.ts).
    json: (value) => process.stdout.write(jsonText(redactor.value(value))),
    stderr: (s) => process.stderr.write(redactor.text(s)),
    // A config file's headers and the credentials read from AWS are known only once main has read them.
    learnSecrets: (values) => {
      redactor = new Redactor([...secrets, ...values]);
      guardConsole(redactor);
    },
  });
} catch (e) {
  // A canary bug is not an endpoint failure: the canary could not judge (inconclusive, as the scheduled
  // run says of an engine crash), in one redacted line, never exit 1 and a raw stack.
  const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  process.stderr.write(
    redactor.text(`mcp-canary: the canary itself failed (${oneLine(what, 300)}); this is a canary bug, not the endpoint\n`),
  );
  code = ExitCode.inconclusive;
}
// The verdict is out: flush both streams and end. judge() closes every socket and timer it opened;
// this is the belt to that, so no library's leftover handle holds the process past the budget.
await Promise.all([new Promise((r) => process.stdout.write('', r)), new Promise((r) => process.stderr.write('', r))]);
process.exit(code);
