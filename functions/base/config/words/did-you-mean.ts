/**
 * "Did you mean" for a misspelt key, region, enum value or target name. Hand-written: an edit distance
 * is ten lines, and a string-similarity package would be one more dependency in the CLI bundle and the
 * Lambda for them.
 */

/**
 * Optimal-string-alignment distance (Levenshtein plus swapping two neighbours): `toool` → `tool` is 1,
 * `tokneUrl` → `tokenUrl` is 1. Case is ignored: `TokenURL` is a misspelling, not a different word.
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d = Array.from({ length: s.length + 1 }, (_, i) => Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[s.length]![t.length]!;
}

/**
 * The candidates `word` is the start of (at least four letters), else the candidates nearest to it, when near enough to be a typo: at most a third of the word's
 * letters changed (at least one, at most three). Ties are all returned (`us-east-3` is as near to
 * `us-east-1` as to `us-east-2`), at most three.
 */
export function closest(word: string, candidates: Iterable<string>): string[] {
  // A shortened word (`clientCert` for clientCertificate) is no typo by distance, but means the one it begins.
  const lower = word.toLowerCase();
  const shortened = lower.length >= 4 ? [...new Set(candidates)].filter((c) => c !== word && c.toLowerCase().startsWith(lower)) : [];
  if (shortened.length > 0) return shortened.slice(0, 3);
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best = Infinity;
  let found: string[] = [];
  for (const c of new Set(candidates)) {
    if (c === word) continue;
    const d = editDistance(word, c);
    if (d > limit || d > best) continue;
    if (d < best) found = [];
    best = d;
    found.push(c);
  }
  return found.slice(0, 3);
}

/** ` (did you mean "tool"?)`, or `''` when nothing is near. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const near = closest(word, candidates);
  return near.length === 0 ? '' : ` (did you mean ${near.map((c) => JSON.stringify(c)).join(' or ')}?)`;
}
