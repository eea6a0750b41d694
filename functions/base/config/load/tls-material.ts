/**
 * TLS material as read (PEM text), checked before the first connection: a wrong file in a secret would
 * otherwise surface as a TLS failure blamed on the endpoint, or as OpenSSL's words. Each problem names
 * the config field and the fix, never the material. Pure (node:crypto, no sockets).
 */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { configError } from '../../common/errors.ts';
import type { TlsMaterial } from '../../common/run-context.ts';

const CERT_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** What was read for each field of `tls` (absent fields are not configured). */
export interface TlsRead {
  readonly clientCertificate?: string;
  readonly clientKey?: string;
  readonly passphrase?: string;
  readonly ca?: string;
}

/** `read` checked and ready for the wire; `where` names the reference of a field for messages (`Secrets Manager secret "mcp-canary/x"`). */
export function checkTlsMaterial(read: TlsRead, where: (field: string) => string, now: number): TlsMaterial {
  const out: { -readonly [K in keyof TlsMaterial]: TlsMaterial[K] } = {};
  if (read.ca !== undefined) {
    certificates(read.ca, 'tls.ca', where, 'a PEM bundle of the CA certificates (BEGIN CERTIFICATE blocks)');
    out.ca = read.ca;
  }
  if (read.clientCertificate === undefined || read.clientKey === undefined) return out;
  const chain = certificates(read.clientCertificate, 'tls.clientCertificate', where, 'the client certificate in PEM (BEGIN CERTIFICATE)');
  const leaf = chain[0];
  const key = privateKey(read.clientKey, read.passphrase, where);
  const subject = leaf!.subject.replace(/\n/g, ', ');
  if (!leaf!.checkPrivateKey(key)) {
    // TLS sends the chain as stored, and the key's own certificate must come first (the intermediates after it).
    const own = chain.findIndex((c) => c.checkPrivateKey(key));
    if (own > 0) {
      throw configError(
        `tls.clientCertificate (${where('tls.clientCertificate')}): the certificate of tls.clientKey (${chain[own]!.subject.replace(/\n/g, ', ')}) is certificate ${own + 1} of ${chain.length}, after ${subject}: store it first, then its intermediates`,
      );
    }
    throw configError(
      `tls.clientKey (${where('tls.clientKey')}) is not the private key of the client certificate (${subject}): store the key that was issued with that certificate, or the certificate of this key`,
    );
  }
  const notAfter = Date.parse(leaf!.validTo);
  if (notAfter <= now) {
    throw configError(
      `tls.clientCertificate (${where('tls.clientCertificate')}): the client certificate (${subject}) expired ${new Date(notAfter).toISOString()}: renew it and store the new certificate and key`,
    );
  }
  out.cert = read.clientCertificate;
  out.key = read.clientKey;
  if (read.passphrase !== undefined) out.passphrase = read.passphrase;
  out.certNotAfter = notAfter;
  out.certSubject = subject;
  return out;
}

function certificates(pem: string, field: string, where: (field: string) => string, wanted: string): X509Certificate[] {
  const blocks = pem.match(CERT_BLOCK) ?? [];
  const kind = /-----BEGIN ([A-Z ]+)-----/.exec(pem)?.[1];
  if (blocks.length === 0) {
    const holds = kind ? `it holds a ${kind.toLowerCase()}, not a certificate` : 'it holds no PEM block';
    throw configError(`${field} (${where(field)}) is not a PEM certificate (${holds}): store ${wanted}`);
  }
  return blocks.map((b, i) => {
    try {
      return new X509Certificate(b);
    } catch {
      throw configError(`${field} (${where(field)}): certificate ${i + 1} of ${blocks.length} does not parse: store ${wanted}, unchanged`);
    }
  });
}

function privateKey(pem: string, passphrase: string | undefined, where: (field: string) => string): KeyObject {
  const encrypted = /ENCRYPTED/.test(pem);
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) {
    const kind = /-----BEGIN ([A-Z ]+)-----/.exec(pem)?.[1];
    throw configError(
      `tls.clientKey (${where('tls.clientKey')}) is not a PEM private key (${kind ? `it holds a ${kind.toLowerCase()}` : 'it holds no PEM block'}): store the key (BEGIN PRIVATE KEY)`,
    );
  }
  if (encrypted && passphrase === undefined) {
    throw configError(
      `tls.clientKey (${where('tls.clientKey')}) is encrypted and tls.passphrase is not set: reference its passphrase in tls.passphrase`,
    );
  }
  try {
    return createPrivateKey(passphrase === undefined ? { key: pem } : { key: pem, passphrase });
  } catch (e) {
    // The code, never the message: OpenSSL's text is safe, but this way nothing of the material can pass.
    const code = (e as { code?: string }).code ?? 'error';
    if (encrypted) {
      throw configError(
        `tls.passphrase (${where('tls.passphrase')}) does not unlock tls.clientKey (${code}): store the key's passphrase, or the key it belongs to`,
      );
    }
    throw configError(
      `tls.clientKey (${where('tls.clientKey')}) does not parse as a private key (${code}): store the key unchanged, in PEM`,
    );
  }
}
