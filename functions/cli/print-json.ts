/**
 * A JSON document on stdout (`check --json`, `snapshot`, `report --json`): handed to the process as a
 * value, so its redaction walks the string leaves before it is serialized — a secret is masked where it
 * stands, and `true`, numbers and keys stay what they are. Never a replacement over the serialized text:
 * a URL's `?read_only=true` once turned every JSON `true` into a string.
 */
export interface JsonOut {
  readonly stdout: (s: string) => void;
  /** @default - serialized as it is (each command redacts its document the same way before) */
  readonly json?: (value: unknown) => void;
}

export function printJson(io: JsonOut, value: unknown): void {
  if (io.json) io.json(value);
  else io.stdout(jsonText(value));
}

/** The one serialization of a document on stdout: two-space indent, a final newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
