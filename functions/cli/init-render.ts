/**
 * What `mcp-canary init` says on stderr: what the server offers, the tools ranked as canaries with why,
 * and the references that stand for the headers given. Server-supplied names are bounded here; the
 * caller redacts and makes each line printable.
 */
import { shownName } from '../base/common/names.ts';
import { oneLine } from '../base/common/redact.ts';
import type { Candidate } from '../engine/judge/candidates.ts';
import type { ListedOr, Offer } from '../engine/judge/survey.ts';
import { PLACEHOLDER_REGION, type InitConfig } from './init-config.ts';

const MARK = { 'read-only': '✓', ask: '?', never: '✗' } as const;
/** Lines per list: a server with hundreds of tools is summarised, not dumped. */
const SHOWN = 12;

export function offerLines(offer: Offer, candidates: readonly Candidate[]): string[] {
  const server = offer.server ? ` ${offer.server.name} ${offer.server.version}` : '';
  const lines = [`init: ${offer.revision ?? 'unknown revision'}${server}`];
  if (offer.tools === null) lines.push('tools: not advertised (no tools capability)');
  else {
    lines.push(`tools: ${candidates.length}, best canary first (✓ read-only, ? asks first, ✗ never called):`);
    const width = Math.min(40, Math.max(...candidates.slice(0, SHOWN).map((c) => shownName(c.name, 40).length), 4));
    for (const c of candidates.slice(0, SHOWN)) lines.push(`  ${MARK[c.gate]} ${shownName(c.name, 40).padEnd(width)}  ${c.why}`);
    if (candidates.length > SHOWN) lines.push(`  … and ${candidates.length - SHOWN} more (--json lists them all)`);
  }
  lines.push(listLine('resources', offer.resources, (r) => oneLine(r.uri, 80)));
  lines.push(listLine('prompts', offer.prompts, (p) => `${shownName(p.name, 40)}${p.required.length ? `(${p.required.join(', ')})` : ''}`));
  if (Array.isArray(offer.resources) || Array.isArray(offer.prompts))
    lines.push('  (listed for you to see: a target has no resource or prompt step yet, so the config names none)');
  return lines;
}

function listLine<T>(what: string, listed: ListedOr<T>, show: (x: T) => string): string {
  if (listed === null) return `${what}: not advertised`;
  if ('error' in listed) return `${what}: listing them failed: ${oneLine(listed.error, 200)}`;
  const names = listed.slice(0, 5).map(show).join(', ');
  return `${what}: ${listed.length}${listed.length ? ` (${names}${listed.length > 5 ? ', …' : ''})` : ''}`;
}

/** Where each header went, how to fill its reference, and the placeholders to change. */
export function referenceLines(config: InitConfig): string[] {
  const lines = config.references.map(
    ({ header, ref }) =>
      `header ${header}: not written; the config reads it from SSM ${'ssmParameter' in ref ? ref.ssmParameter : ''}${ref.prefix ? ` (prefix "${ref.prefix}")` : ''}. Create it with: aws ssm put-parameter --type SecureString --name ${'ssmParameter' in ref ? ref.ssmParameter : ''} --value '<the value${ref.prefix ? ' after the prefix' : ''}>' — or rename it in the config`,
  );
  if (config.urlRedacted)
    lines.push(
      'url: it carries a credential (a query value or a key in the path), written as [redacted]: put the credential in a header if the server takes one, or write the URL into the config yourself',
    );
  lines.push(`homeRegion: "${PLACEHOLDER_REGION}" is a placeholder: set the region the canary's metrics and alarms live in`);
  return lines;
}
