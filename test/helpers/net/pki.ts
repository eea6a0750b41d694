/**
 * A private PKI made with openssl for one test file: a CA, a server certificate for 127.0.0.1 that it
 * signs, and client certificates it signs (one valid for months, one expiring in days) with keys plain and encrypted (AES-256, a passphrase). Files in a temp
 * folder too, for `file:` references; `cleanup()` removes them.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireTool } from '../tools.ts';

export interface ClientCert {
  readonly cert: string;
  readonly key: string;
  readonly certFile: string;
  readonly keyFile: string;
}

export interface Pki {
  readonly dir: string;
  readonly caPem: string;
  readonly caFile: string;
  readonly server: { readonly cert: string; readonly key: string };
  /** Valid 90 days, plain key. */
  readonly client: ClientCert;
  /** Valid 90 days, key encrypted with `passphrase`. */
  readonly encrypted: ClientCert;
  readonly passphrase: string;
  /** Expires in 3 days. */
  readonly expiring: ClientCert;
  /** Valid, but signed by another CA the servers here do not trust. */
  readonly untrusted: ClientCert;
  cleanup(): void;
}

export const PASSPHRASE = 'pass-Phr4se-never-printed';

export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-canary-mtls-'));
  const f = (n: string) => join(dir, n);
  const ssl = (...args: string[]) => execFileSync(requireTool('openssl'), args, { stdio: 'ignore' });
  const ca = (name: string) =>
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      f(`${name}.key`),
      '-out',
      f(`${name}.pem`),
      '-subj',
      `/CN=${name}`,
      '-days',
      '30',
    );
  const leaf = (name: string, signer: string, days: number, ext: string, encrypt = false) => {
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`), '-subj', `/CN=${name}`);
    writeFileSync(f(`${name}.cnf`), `${ext}\n`);
    ssl(
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f(`${signer}.pem`),
      '-CAkey',
      f(`${signer}.key`),
      '-CAcreateserial',
      '-out',
      f(`${name}.pem`),
      '-days',
      String(days),
      '-extfile',
      f(`${name}.cnf`),
    );
    if (encrypt) ssl('pkey', '-in', f(`${name}.key`), '-aes256', '-passout', `pass:${PASSPHRASE}`, '-out', f(`${name}.enc.key`));
    const keyFile = encrypt ? f(`${name}.enc.key`) : f(`${name}.key`);
    return { cert: readFileSync(f(`${name}.pem`), 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile: f(`${name}.pem`), keyFile };
  };
  ca('canary-test-ca');
  ca('stranger-ca');
  const server = leaf('server', 'canary-test-ca', 60, 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth');
  const clientExt = 'extendedKeyUsage=clientAuth';
  return {
    dir,
    caPem: readFileSync(f('canary-test-ca.pem'), 'utf8'),
    caFile: f('canary-test-ca.pem'),
    server: { cert: server.cert, key: server.key },
    client: leaf('canary-client', 'canary-test-ca', 90, clientExt),
    encrypted: leaf('canary-client-enc', 'canary-test-ca', 90, clientExt, true),
    passphrase: PASSPHRASE,
    expiring: leaf('canary-client-soon', 'canary-test-ca', 3, clientExt),
    untrusted: leaf('canary-client-stranger', 'stranger-ca', 90, clientExt),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A file in the PKI's folder with `text` (for a reference to a file that holds the wrong thing). */
export function pkiFile(pki: Pki, name: string, text: string): string {
  const path = join(pki.dir, name);
  writeFileSync(path, text);
  return path;
}
