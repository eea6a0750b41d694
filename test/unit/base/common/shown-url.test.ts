/** How a URL is shown everywhere (functions/base/common/shown-url.ts), and what the Redactor learns from it. */
import { describe, expect, it } from 'vitest';
import { Redactor, secretsOf } from '../../../../functions/base/common/redact.ts';
import { shownUrl, URL_MASK } from '../../../../functions/base/common/shown-url.ts';
import { URL_SHAPES } from '../../../helpers/url-shapes.ts';

describe('a URL shown by its structure', () => {
  for (const s of URL_SHAPES) {
    it(`shows ${s.shape}: keys kept, values and userinfo masked, no fragment`, () => {
      const shown = shownUrl(s.url);
      expect(shown).toBe(s.shown);
      for (const secret of s.secrets) expect(shown).not.toContain(secret);
      expect(shown).not.toContain('#');
    });
  }

  it('shows text that is not a URL as the mask alone: no part of it can be known safe', () => {
    expect(shownUrl('not a url sk-live-0a1b2c3d4e')).toBe(URL_MASK);
    expect(shownUrl('mailto:ops@example.com?subject=sk-live-0a1b2c3d4e')).toBe(`mailto:${URL_MASK}`);
  });

  it('is stable: showing a shown URL again changes nothing', () => {
    for (const s of URL_SHAPES) expect(shownUrl(shownUrl(s.url))).toBe(shownUrl(s.url));
  });
});

describe('what the Redactor learns from a URL', () => {
  for (const s of URL_SHAPES) {
    it(`masks each secret of ${s.shape} where a server echoes it`, () => {
      const r = new Redactor(secretsOf({ url: s.url }));
      for (const secret of s.secrets) expect(r.text(`upstream said: ${secret}.`)).toBe('upstream said: [redacted].');
    });
  }

  it('never learns a flag value: `true`, `off` and short numbers stay readable in a detail', () => {
    const r = new Redactor(secretsOf({ url: 'https://x.example/mcp?read_only=true&mode=off&limit=1000&n=-42' }));
    const detail = 'isError: true after 1000 ms, fallback off, delta -42';
    expect(r.text(detail)).toBe(detail);
  });

  it('walks a value: string leaves masked, booleans, numbers and keys kept', () => {
    const r = new Redactor(secretsOf({ url: 'https://x.example/mcp?token=abcd1234&sort=outcome' }));
    const v = { outcome: 'failed', ok: true, n: 1234, detail: 'echoed abcd1234', list: ['outcome'] };
    expect(r.value(v)).toEqual({ outcome: 'failed', ok: true, n: 1234, detail: 'echoed [redacted]', list: ['[redacted]'] });
    expect(r.value({ abcd1234: 'x' }, { keys: true })).toEqual({ '[redacted]': 'x' });
  });
});
