/**
 * The fleet config `mcp-canary init` prints: one target, in the config file's own JSON, checked by the
 * config loader's own parser before it is shown. Never a credential: every header given on the command
 * line becomes a `headerSecrets` reference (an SSM parameter named for the target and the header, which
 * the user creates or renames), the URL is shown as the Redactor leaves it, and only the fields that
 * differ from their defaults are written.
 */
import { Redactor, secretsOf } from '../base/common/redact.ts';
import { parseFleet } from '../base/config/load/load.ts';
import type { Fleet } from '../base/config/schema/fleet.ts';
import { Target, type HeaderSecretRef } from '../base/config/schema/target.ts';

/** A placeholder the user replaces: the fleet's home region is theirs to choose. */
export const PLACEHOLDER_REGION = 'us-east-1';

export interface CanaryProposal {
  readonly name: string;
  readonly arguments: Record<string, unknown>;
  readonly expectJson: Record<string, unknown>;
  readonly expectText?: string;
  /** The user said yes to a tool not annotated read-only: check refuses it without this. */
  readonly allowUnsafe: boolean;
}

export interface InitConfig {
  /** The config as written (JSON), validated. */
  readonly json: Record<string, unknown>;
  /** The same, as the loader reads it. */
  readonly fleet: Fleet;
  /** Each header given, and the reference that stands for it. */
  readonly references: ReadonlyArray<{ readonly header: string; readonly ref: HeaderSecretRef }>;
  /** The URL carried something secret, and is written redacted. */
  readonly urlRedacted: boolean;
}

export function initConfig(target: Target, tool: CanaryProposal | null): InitConfig {
  const defaults = Target.parse({ name: target.name, url: target.url }) as Record<string, unknown>;
  const entry: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(target)) {
    if (key === 'headers' || key === 'tool' || value === undefined) continue;
    if (key !== 'name' && key !== 'url' && JSON.stringify(value) === JSON.stringify(defaults[key])) continue;
    entry[key] = value;
  }
  const urlRedactor = new Redactor(secretsOf({ url: target.url, healthUrl: target.healthUrl }));
  entry.url = urlRedactor.text(target.url);
  if (target.healthUrl) entry.healthUrl = urlRedactor.text(target.healthUrl);
  const references = Object.entries(target.headers).map(([header, value]) => ({ header, ref: referenceFor(target.name, header, value) }));
  if (references.length > 0) entry.headerSecrets = Object.fromEntries(references.map((r) => [r.header, r.ref]));
  if (tool) entry.tool = toolEntry(tool);
  const json = { homeRegion: PLACEHOLDER_REGION, targets: [entry] };
  // The loader's own parser: what init prints is a config `check --config` and `cdk synth` read.
  const fleet = parseFleet(json, 'the config init made');
  return { json, fleet, references, urlRedacted: entry.url !== target.url };
}

/**
 * An SSM parameter named for the target and the header, the scheme kept as its prefix so the parameter
 * holds the bare token: `Authorization: Bearer …` → `{ ssmParameter: "/mcp-canary/<target>/authorization", prefix: "Bearer " }`.
 */
function referenceFor(target: string, header: string, value: string): HeaderSecretRef {
  const scheme = /^(bearer|basic|token)\s+/i.exec(value)?.[0];
  const leaf = header.toLowerCase().replace(/[^a-z0-9_.-]+/g, '-');
  return { ssmParameter: `/mcp-canary/${target}/${leaf}`, ...(scheme ? { prefix: `${scheme.trim()} ` } : {}) };
}

function toolEntry(tool: CanaryProposal): Record<string, unknown> {
  return {
    name: tool.name,
    ...(Object.keys(tool.arguments).length > 0 ? { arguments: tool.arguments } : {}),
    ...(tool.expectText !== undefined ? { expectText: tool.expectText } : {}),
    ...(Object.keys(tool.expectJson).length > 0 ? { expectJson: tool.expectJson } : {}),
    ...(tool.allowUnsafe ? { allowUnsafe: true } : {}),
  };
}
