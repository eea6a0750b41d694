/**
 * What a status page may say about itself: its title and each target's display name go into the page's
 * sentences, so they are plain text. Any script, markup and emoji is fine (it is escaped, and shown as
 * written); a control or text-direction character is refused at synth with where it is.
 */
import { describe, expect, it } from 'vitest';
import { parseFleet } from '../../../../functions/base/config/load/load.ts';

const fleet = (title: string, name: string) =>
  parseFleet({
    homeRegion: 'us-east-1',
    statusPage: { title },
    targets: [{ name: 'search-prod', url: 'https://search.example.com/mcp', status: { name } }],
  });

describe('status page names', () => {
  it('takes any script, quotes, markup and emoji as they are written', () => {
    const f = fleet('Acme « MCP » status — 状态', 'Ünïcødé 検索 🔍 "Q&A" <b>x</b>');
    expect(f.targets[0]!.status!.name).toBe('Ünïcødé 検索 🔍 "Q&A" <b>x</b>');
  });

  it.each([
    ['a right-to-left override', 'Search\u202etools', 'U+202E at position 7'],
    ['a first-strong isolate', 'Search \u2068tools', 'U+2068 at position 8'],
    ['a line break', 'Search\ntools', 'U+000A at position 7'],
    ['an escape character', 'Search\u001b[31m', 'U+001B at position 7'],
  ])('refuses %s in a display name, naming the character and where it is', (_, name, where) => {
    expect(() => fleet('Acme status', name)).toThrow(
      `targets[0].status.name has a control or text-direction character (${where}), which would garble the page's sentences: write it as plain text`,
    );
  });

  it('refuses one in the title too', () => {
    expect(() => fleet('Acme\u202e status', 'Search')).toThrow(
      /^config: statusPage\.title has a control or text-direction character \(U\+202E at position 5\)/,
    );
  });
});
