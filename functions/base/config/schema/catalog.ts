/**
 * The `catalog` a target records (what `mcp-canary snapshot` prints): one fingerprint per tool, or —
 * for a 2026-07-28 server whose `tools/list` is `cacheScope: private` — one such map per credential,
 * since the spec lets a private list differ from one authorization context to the next.
 */
// The namespace import, not `{ z }`: esbuild then keeps only what is used.
import * as z from 'zod';

/** Hex digits kept per fingerprint part: 32 bits, enough to notice a change of one tool, short enough for a schedule payload. */
export const HASH_HEX_CHARS = 8;
const HASH = `[0-9a-f]{${HASH_HEX_CHARS}}`;
/** A tool's fingerprint (functions/engine/catalog/fingerprint.ts makes them). */
export const FINGERPRINT_PATTERN = new RegExp(`^d:(${HASH}|-);i:(${HASH}|-);o:(${HASH}|-);a:(${HASH}|-);r:[01]$`);
/** A credential's id in a per-credential catalog (functions/engine/catalog/credential.ts derives them). */
export const CREDENTIAL_ID_PATTERN = /^(cred-[0-9a-f]{12}|anonymous)$/;

const fingerprint = z
  .string()
  .regex(
    FINGERPRINT_PATTERN,
    'is not a catalog fingerprint ("d:…;i:…;o:…;a:…;r:0|1"). Paste the output of `mcp-canary snapshot <url>` unchanged',
  );

/** `{ "<tool name>": "<fingerprint>" }`. */
export const ToolFingerprints = z.record(z.string().min(1, 'names no tool'), fingerprint);
export type ToolFingerprints = z.infer<typeof ToolFingerprints>;

/** `{ "byCredential": { "<credential id>": { "<tool>": "<fingerprint>" } } }`. */
export const PerCredentialCatalog = z
  .object({
    byCredential: z.record(
      z
        .string()
        .regex(
          CREDENTIAL_ID_PATTERN,
          'is not a credential id ("cred-" and 12 hex digits, or "anonymous"), as `mcp-canary snapshot` prints it',
        ),
      ToolFingerprints,
    ),
  })
  .strict();

/** Tool names are never objects, so the two shapes cannot be confused. */
export const CatalogSetting = z.union([PerCredentialCatalog, ToolFingerprints], {
  error:
    'must be { "<tool>": "<fingerprint>" } or { "byCredential": { "<credential id>": { … } } }, as `mcp-canary snapshot <url>` prints it',
});
export type CatalogSetting = z.infer<typeof CatalogSetting>;
