/** The target fields `catalog` and `posture`: accepted as documented, refused with one line naming the field. */
import { describe, expect, it } from 'vitest';
import { parseOrThrow } from '../../../../functions/base/config/words/issues.ts';
import { Target } from '../../../../functions/base/config/schema/target.ts';
import { selectedChecks } from '../../../../functions/base/config/schema/posture.ts';

const parse = (over: Record<string, unknown>) => parseOrThrow(Target, { name: 't', url: 'https://mcp.example.com/mcp', ...over }, 'config');
const message = (over: Record<string, unknown>) => {
  try {
    parse(over);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('accepted');
};

describe('posture', () => {
  it('takes true, false or a list, and selects in report order', () => {
    expect(selectedChecks(parse({ posture: true }).posture)).toEqual([
      'origin',
      'protocol-version',
      'get-delete',
      'unauthenticated',
      'hsts',
      'unattended-auth',
    ]);
    expect(selectedChecks(parse({ posture: ['hsts', 'origin'] }).posture)).toEqual(['origin', 'hsts']);
    expect(selectedChecks(parse({ posture: false }).posture)).toEqual([]);
    expect(selectedChecks(parse({}).posture)).toEqual([]);
  });
  it('refuses an unknown check, naming the field and the known ones', () => {
    expect(message({ posture: ['origin', 'cors'] })).toContain('posture');
    expect(message({ posture: ['origin', 'cors'] })).toContain(
      'origin, protocol-version, get-delete, unauthenticated, hsts, unattended-auth',
    );
  });
});

describe('catalog', () => {
  it('refuses a value that is not a fingerprint, naming the tool', () => {
    expect(message({ catalog: { get_rate: 'abc' } })).toMatch(/^config: catalog\.get_rate is not a catalog fingerprint/);
  });
  it('refuses a credential id that is not one', () => {
    expect(message({ catalog: { byCredential: { alice: { get_rate: 'd:-;i:-;o:-;a:-;r:0' } } } })).toContain('catalog');
  });
});
