/**
 * A target's reach as read: its TLS material (`tls`, functions/base/config/schema/tls.ts) and the proxy's
 * credentials, each read by its reference and checked before the first connection. A `file:`
 * reference is read only where files are the caller's (the CLI); the scheduled run names the fix.
 */
import { readFile } from 'node:fs/promises';
import { configError } from '../../base/common/errors.ts';
import type { ProxyReach, Reach } from '../../base/common/run-context.ts';
import type { ProxyCredentialsRef, ProxyRuntime } from '../../base/config/schema/proxy.ts';
import type { HeaderSecretRef } from '../../base/config/schema/target.ts';
import { checkTlsMaterial, type TlsRead } from '../../base/config/load/tls-material.ts';
import { tlsRefs, type TlsMaterialRef, type TlsSetting } from '../../base/config/schema/tls.ts';

/** Reads one Secrets Manager / SSM reference for a config field (the SecretReader's cache, timeout and words). */
export type StoreRead = (field: string, ref: HeaderSecretRef) => Promise<string>;

export interface ReachOptions {
  /** `file:` references may be read (the CLI). */
  readonly files: boolean;
  /** Wall clock ms, for the certificate's expiry. */
  readonly now: number;
}

/** The reach and every value in it that is secret (key, passphrase, proxy credentials), for the Redactor. */
export interface ReachRead {
  readonly reach: Reach | undefined;
  readonly secretValues: readonly string[];
}

/** The target's `tls` and the fleet's proxy (the run function's; the CLI passes `{ fromEnv: true }`) read and checked. */
export async function readReach(
  tls: TlsSetting | undefined,
  proxy: ProxyRuntime | { readonly fromEnv: true } | undefined,
  read: StoreRead,
  o: ReachOptions,
): Promise<ReachRead> {
  const refs = tlsRefs(tls);
  const [values, credentials] = await Promise.all([
    Promise.all(refs.map(([field, ref]) => readMaterial(field, ref, read, o))),
    proxy && 'url' in proxy && proxy.credentials ? read('proxy.credentials', storeRef(proxy.credentials)) : undefined,
  ]);
  const got: Record<string, string> = {};
  refs.forEach(([field], i) => (got[field.slice('tls.'.length)] = values[i]!));
  const where = (field: string) => describeRef(refs.find(([f]) => f === field)?.[1]);
  const material = refs.length ? checkTlsMaterial(got as TlsRead, where, o.now) : undefined;
  const proxyReach: ProxyReach | undefined = !proxy
    ? undefined
    : 'url' in proxy
      ? { url: proxy.url, noProxy: proxy.noProxy, ...(credentials !== undefined ? { credentials: proxyCredentials(credentials) } : {}) }
      : { fromEnv: true };
  const secretValues = [...keyLines(got.clientKey), ...(got.passphrase ? [got.passphrase] : []), ...credentialForms(proxyReach)];
  const reach =
    material || proxyReach ? { ...(material ? { tls: material } : {}), ...(proxyReach ? { proxy: proxyReach } : {}) } : undefined;
  return { reach, secretValues };
}

async function readMaterial(field: string, ref: TlsMaterialRef, read: StoreRead, o: ReachOptions): Promise<string> {
  if (!('file' in ref)) return read(field, storeRef(ref));
  if (!o.files) {
    throw configError(
      `${field}: a file reference ("file:${ref.file}") is for the CLI only; the scheduled run has no such file. Store the PEM in Secrets Manager as mcp-canary/<name> and reference { secretsManager: "mcp-canary/<name>" }`,
    );
  }
  try {
    const text = await readFile(ref.file, 'utf8');
    // A passphrase file written by `echo` ends in a newline that is not part of the passphrase.
    return field === 'tls.passphrase' ? text.replace(/\r?\n$/, '') : text;
  } catch (e) {
    throw configError(
      `${field}: cannot read the file ${JSON.stringify(ref.file)} (${(e as { code?: string }).code ?? 'error'}): check the path`,
      e,
    );
  }
}

function storeRef(ref: Exclude<TlsMaterialRef, { file: string }> | ProxyCredentialsRef): HeaderSecretRef {
  return 'secretsManager' in ref
    ? { secretsManager: ref.secretsManager, ...(ref.jsonKey !== undefined ? { jsonKey: ref.jsonKey } : {}) }
    : { ssmParameter: ref.ssmParameter };
}

function describeRef(ref: TlsMaterialRef | undefined): string {
  if (!ref) return 'not set';
  if ('file' in ref) return `the file ${JSON.stringify(ref.file)}`;
  if ('secretsManager' in ref) return `Secrets Manager secret ${JSON.stringify(ref.secretsManager)}`;
  return `SSM parameter ${JSON.stringify(ref.ssmParameter)}`;
}

/** A proxy secret holds `user:password`; a bare password is refused with the fix (Basic needs both). */
function proxyCredentials(value: string): string {
  const trimmed = value.trim();
  if (trimmed.indexOf(':') <= 0)
    throw configError('proxy.credentials: the secret must hold "user:password" (the proxy\'s Basic credentials): store it that way');
  return trimmed;
}

/** The key's base64 lines (its PEM armour lines are ordinary words, and would redact every certificate shown). */
function keyLines(pem: string | undefined): string[] {
  if (!pem) return [];
  const lines = pem.split(/\r?\n/).filter((l) => l && !l.startsWith('-----') && !l.includes(':'));
  return [...lines, lines.join('')];
}

function credentialForms(proxy: ProxyReach | undefined): string[] {
  if (!proxy || !('url' in proxy) || !proxy.credentials) return [];
  const c = proxy.credentials;
  return [c, c.slice(c.indexOf(':') + 1), Buffer.from(c).toString('base64')];
}
