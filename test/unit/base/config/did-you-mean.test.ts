/** "Did you mean": near enough to be a typo, never a guess at a different word. */
import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from '../../../../functions/base/config/words/did-you-mean.ts';

describe('did you mean', () => {
  it('counts one edit for a swap, an extra, a missing or a wrong letter, and ignores case', () => {
    expect([
      editDistance('toool', 'tool'),
      editDistance('tokneUrl', 'tokenUrl'),
      editDistance('scheduel', 'schedule'),
      editDistance('TokenURL', 'tokenUrl'),
    ]).toEqual([1, 1, 1, 0]);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests the nearest keys, and ties together', () => {
    expect(closest('toool', ['name', 'url', 'tool', 'timeoutMs'])).toEqual(['tool']);
    expect(closest('us-east-3', ['us-east-1', 'us-east-2', 'us-west-2'])).toEqual(['us-east-1', 'us-east-2']);
    expect(didYouMean('expectJsonn', ['expectJson', 'expectText'])).toBe(' (did you mean "expectJson"?)');
  });

  it('suggests the key a shortened word begins (four letters or more)', () => {
    expect(closest('clientCert', ['clientCertificate', 'clientKey', 'passphrase', 'ca'])).toEqual(['clientCertificate']);
    expect(closest('cli', ['clientCertificate'])).toEqual([]);
  });

  it('suggests nothing for a word that is not a typo of any', () => {
    expect(closest('vault', ['secretsManager', 'ssmParameter'])).toEqual([]);
    expect(closest('x', ['url', 'email'])).toEqual([]);
    expect(didYouMean('bogus', ['tool'])).toBe('');
  });
});
