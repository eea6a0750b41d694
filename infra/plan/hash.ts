/** FNV-1a, 32 bit: a stable, dependency-free hash for stack placement (a library for 8 lines is not worth a dependency). */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (const ch of Buffer.from(s, 'utf8')) {
    h ^= ch;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
