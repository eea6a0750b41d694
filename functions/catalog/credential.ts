/**
 * Which credential a run speaks with, named without revealing it: a private tool list is recorded
 * and compared per credential. The id is a truncated SHA-256 of the header names and values the
 * target sends — one-way, and the same wherever the same headers are sent (the CLI's `snapshot`
 * and the scheduled run, which reads them from Secrets Manager).
 */
import { createHash } from 'node:crypto';

export const ANONYMOUS = 'anonymous';
export const CREDENTIAL_ID_PATTERN = /^(cred-[0-9a-f]{12}|anonymous)$/;

export function credentialId(headers: Readonly<Record<string, string>>): string {
  const lines = Object.entries(headers)
    .map(([name, value]) => `${name.toLowerCase()}:${value.trim()}`)
    .sort();
  if (lines.length === 0) return ANONYMOUS;
  return `cred-${createHash('sha256').update(lines.join('\n')).digest('hex').slice(0, 12)}`;
}
