/**
 * `mcp-canary snapshot`: the tool catalog's fingerprint, recorded by a run like any other (the run
 * context, the token step, retries, redaction), of the target without its canary tool, posture or
 * recorded catalog. A private 2026-07-28 list is recorded per credential.
 */
import { credentialHeaders, credentialId } from '../catalog/credential.ts';
import { fingerprintCatalog } from '../catalog/fingerprint.ts';
import type { Verdict } from '../../base/common/verdict.ts';
import type { CatalogSetting } from '../../base/config/schema/catalog.ts';
import type { Target } from '../../base/config/schema/target.ts';
import { judgeRun, type JudgeDeps } from './judge.ts';

export interface RecordedCatalog {
  readonly verdict: Verdict;
  /** Null when the run did not get as far as tools/list. */
  readonly catalog: CatalogSetting | null;
  /** Redacts text with the run's secrets: tool names come from the server, and one may echo a credential. */
  readonly redact: (text: string) => string;
}

export async function recordCatalog(target: Target, deps: JudgeDeps = {}): Promise<RecordedCatalog> {
  const { verdict, listed, redactor } = await judgeRun(
    { ...target, tool: undefined, backends: undefined, posture: undefined, catalog: undefined },
    deps,
  );
  const redact = (text: string) => redactor.text(text);
  if (!listed) return { verdict, catalog: null, redact };
  const map = fingerprintCatalog(listed.tools);
  const catalog = listed.cacheScope === 'private' ? { byCredential: { [credentialId(credentialHeaders(target))]: map } } : map;
  return { verdict, catalog, redact };
}
