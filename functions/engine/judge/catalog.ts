/**
 * `mcp-canary snapshot`: the tool catalog's fingerprint, recorded by a run like any other (the run
 * context, the token step, retries, redaction), of the target without its canary tool, posture or
 * recorded catalog. A private 2026-07-28 list is recorded per credential. With a gateway backend's
 * `prefix`, only the tools behind it, the prefix taken off: the backend's `catalog` as drift compares it.
 */
import { credentialHeaders, credentialId } from '../catalog/credential.ts';
import { fingerprintCatalog } from '../catalog/fingerprint.ts';
import type { Verdict } from '../../base/common/verdict.ts';
import type { Redactor } from '../../base/common/redact.ts';
import { behindPrefix } from '../../base/config/schema/backends.ts';
import type { CatalogSetting } from '../../base/config/schema/catalog.ts';
import type { Target } from '../../base/config/schema/target.ts';
import { judgeRun, type JudgeDeps } from './judge.ts';

export interface RecordedCatalog {
  readonly verdict: Verdict;
  /** Null when the run did not get as far as tools/list. */
  readonly catalog: CatalogSetting | null;
  /** How many tools the server listed, and how many of them were recorded (a prefix that matches none is told from an empty list). */
  readonly counts: { readonly listed: number; readonly recorded: number };
  /** The run's secrets: tool names come from the server, and one may echo a credential. */
  readonly redactor: Redactor;
}

export async function recordCatalog(target: Target, deps: JudgeDeps = {}, prefix?: string): Promise<RecordedCatalog> {
  // Only the listing: no tool, no flow, no backends — a snapshot records what is listed, nothing is called.
  const { verdict, listed, redactor } = await judgeRun(
    { ...target, tool: undefined, flow: undefined, backends: undefined, posture: undefined, catalog: undefined },
    deps,
  );
  if (!listed) return { verdict, catalog: null, counts: { listed: 0, recorded: 0 }, redactor };
  // The same cut the run makes for a backend's drift.
  const tools = prefix === undefined ? listed.tools : behindPrefix(listed.tools, prefix);
  const map = fingerprintCatalog(tools);
  const catalog = listed.cacheScope === 'private' ? { byCredential: { [credentialId(credentialHeaders(target))]: map } } : map;
  return { verdict, catalog, counts: { listed: listed.tools.length, recorded: tools.length }, redactor };
}
