import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv';
import { describe, expect, it } from 'vitest';
import { CompiledSchemaCache } from '../../../../functions/engine/probe/validator.ts';

const rateSchema = { type: 'object', properties: { pair: { type: 'string' }, rate: { type: 'number' } }, required: ['pair', 'rate'] };

describe('the outputSchema validator cache', () => {
  it('checks like the SDK default: same verdicts, same messages', () => {
    // Prepare
    const cached = new CompiledSchemaCache().getValidator(rateSchema);
    const sdk = new AjvJsonSchemaValidator().getValidator(rateSchema);
    // Act, Assess
    for (const input of [{ pair: 'EURUSD', rate: 1.08 }, { pair: 'EURUSD', rate: '1.08' }, { rate: 1 }, 'text']) {
      expect(cached(input)).toEqual(sdk(input));
    }
    expect(cached({ pair: 'EURUSD' }).valid).toBe(false);
  });

  it('compiles a schema once, however often it is listed again', () => {
    // Prepare
    const cache = new CompiledSchemaCache();
    // Act: a fresh copy each run, as each tools/list parses its own
    const first = cache.getValidator(structuredClone(rateSchema));
    const again = cache.getValidator(structuredClone(rateSchema));
    // Assess
    expect(again).toBe(first);
  });

  it('checks a changed schema under the same $id against the new one', () => {
    // Prepare
    const cache = new CompiledSchemaCache();
    const v1 = { $id: 'https://rates.example.com/answer', type: 'object', properties: { rate: { type: 'number' } }, required: ['rate'] };
    const v2 = { ...v1, properties: { rate: { type: 'string' } } };
    // Act
    const old = cache.getValidator(v1);
    const changed = cache.getValidator(v2);
    // Assess
    expect(old({ rate: 1.08 }).valid).toBe(true);
    expect(changed({ rate: 1.08 }).valid).toBe(false);
    expect(changed({ rate: '1.08' }).valid).toBe(true);
  });

  it('keeps at most its limit of schemas, dropping the least recently used', () => {
    // Prepare
    const cache = new CompiledSchemaCache(2);
    const schema = (n: number) => ({ type: 'object', properties: { [`f${n}`]: { type: 'number' } } });
    const a = cache.getValidator(schema(1));
    const b = cache.getValidator(schema(2));
    // Act: use 1 again, then a third schema evicts 2, not 1
    expect(cache.getValidator(schema(1))).toBe(a);
    cache.getValidator(schema(3));
    // Assess
    expect(cache.getValidator(schema(1))).toBe(a);
    expect(cache.getValidator(schema(2))).not.toBe(b);
  });
});
