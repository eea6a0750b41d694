/** A dependency-free table: numbers right-aligned, text left-aligned, one space-padded line per row. */
import { stripVTControlCharacters } from 'node:util';

const NUMERIC = /^[-−+~≤≥<>]?\$?[\d,.]+( ?(ms|%|×|KB|KiB|MB|MiB|B|s|RTT))?$/;

export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const width = (s: string) => stripVTControlCharacters(s).length;
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ''))));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => {
        const pad = ' '.repeat(widths[i]! - width(c));
        return NUMERIC.test(c) && i > 0 ? pad + c : c + pad;
      })
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export const fmt = {
  ms: (v: number) => `${v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : Math.round(v).toLocaleString('en-US')} ms`,
  ratio: (v: number) => `${v < 10 ? v.toFixed(2) : v.toFixed(1)}×`,
  kb: (bytes: number) => `${Math.round(bytes / 1000).toLocaleString('en-US')} KB`,
  mb: (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`,
  usd: (v: number): string => {
    if (v < 0) return `−${fmt.usd(-v)}`;
    return `$${v < 0.01 && v > 0 ? v.toFixed(4) : v < 10 ? v.toFixed(3) : v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  },
  int: (v: number) => Math.round(v).toLocaleString('en-US'),
};
