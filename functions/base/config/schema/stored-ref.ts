/**
 * The two places a deployed credential is read from, as config fields. Every reference (a header, an
 * OAuth secret, TLS material, the proxy's credentials) names them the same way and is checked by the same
 * rules (arns.ts); only the example in the message is the field's own.
 */
// The namespace import, not `{ z }`: esbuild then keeps only what is used.
import * as z from 'zod';
import { secretRefProblem, ssmRefProblem } from '../aws/arns.ts';
import { refineBy } from '../words/words.ts';

const holding = (holds: string | undefined) => (holds ? `; it holds ${holds}` : '');

/** `secretsManager`: a secret's name (under mcp-canary/) or ARN. */
export function secretsManagerName(example: string, holds?: string) {
  return z
    .string()
    .min(1, `is empty: give the secret's name or ARN, e.g. "${example}"${holding(holds)}`)
    .superRefine(refineBy(secretRefProblem));
}

/** `ssmParameter`: a parameter's name (under /mcp-canary/) or ARN. */
export function ssmParameterName(example: string, holds?: string) {
  return z
    .string()
    .min(1, `is empty: give the parameter's name, e.g. "${example}"${holding(holds)}`)
    .superRefine(refineBy(ssmRefProblem));
}
