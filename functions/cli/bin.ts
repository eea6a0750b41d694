/** The process entry: wires `main` to the real stdout/stderr and exit code. */
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
const redactor = new Redactor(secrets);
guardConsole(redactor);

const code = await main(argv, {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(redactor.text(s)),
});
process.exitCode = code;
