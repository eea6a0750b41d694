/**
 * `check … --catalog FILE` compares the listed tools against a recorded catalog (what `mcp-canary
 * snapshot` prints); `check … --posture` runs the posture checks (every time, not hourly) and prints
 * them under the verdict. Both apply to flag and config targets alike, after the check parser.
 */
import { readFile } from 'node:fs/promises';
import { configError } from '../base/common/errors.ts';
import { CatalogSetting } from '../base/config/schema/catalog.ts';
import { parseOrThrow } from '../base/config/words/issues.ts';
import type { Target } from '../base/config/schema/target.ts';

export interface CatalogPostureFlags {
  readonly catalogFile?: string;
  readonly posture: boolean;
}

/** The targets with `--catalog` and `--posture` applied. */
export async function applyCatalogPosture(targets: readonly Target[], flags: CatalogPostureFlags): Promise<Target[]> {
  const catalog = flags.catalogFile === undefined ? undefined : await readCatalogFile(flags.catalogFile);
  return targets.map((t) => ({
    ...t,
    ...(catalog ? { catalog } : {}),
    ...(flags.posture ? { posture: t.posture && t.posture !== true ? t.posture : true } : {}),
  }));
}

/** On the command line posture runs every time it is asked for, not hourly. */
export function judgeDepsFor(flags: CatalogPostureFlags): { postureEveryRun?: boolean } {
  return flags.posture ? { postureEveryRun: true } : {};
}

async function readCatalogFile(file: string): Promise<CatalogSetting> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw configError(
      `--catalog ${file}: ${code ? `cannot read the file (${code}). Check the path` : `is not valid JSON (${(e as Error).message}). Save the output of \`mcp-canary snapshot\` unchanged`}.`,
      e,
    );
  }
  // The snapshot's own shape, `{ "catalog": … }`, or the catalog alone.
  const inner = raw !== null && typeof raw === 'object' && 'catalog' in raw ? (raw as { catalog: unknown }).catalog : raw;
  return parseOrThrow(CatalogSetting, inner, `--catalog ${file}`, 'catalog');
}
