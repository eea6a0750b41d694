/**
 * A target's TLS material: a client certificate (mutual TLS, for API gateways and service meshes) and
 * a private CA bundle, each by reference — Secrets Manager or SSM under `mcp-canary/` for the scheduled
 * run, or a file for the CLI (`cdk synth` refuses a file: the Lambda has no such file). PEM text, read
 * at run time by functions/io/secrets/ and checked by tls-material.ts before any connection is made.
 */
// The namespace import, not `{ z }`: esbuild then keeps only what is used.
import * as z from 'zod';
import { secretsManagerName, ssmParameterName } from './stored-ref.ts';
import { unionError } from '../words/words.ts';

/** Where one piece of TLS material (PEM) is read from. `"file:./client.pem"` is short for `{ file: "./client.pem" }`. */
export const TlsMaterialRef = z.union(
  [
    z
      .object({
        secretsManager: secretsManagerName('mcp-canary/my-target/client-cert'),
        /** When the secret is a JSON object, the key whose value is the PEM. */
        jsonKey: z.string().optional(),
      })
      .strict(),
    z
      .object({
        ssmParameter: ssmParameterName('/mcp-canary/my-target/client-cert'),
      })
      .strict(),
    z.object({ file: z.string().min(1, 'is empty: give the path of the PEM file') }).strict(),
    z
      .string()
      .regex(/^file:.+/, 'must be a reference, never the PEM itself: "file:<path>", or an object { secretsManager } / { ssmParameter }')
      .transform((s) => ({ file: s.slice('file:'.length) })),
  ],
  {
    error: unionError(
      'must be a reference, never the PEM itself: { secretsManager: "<arn or name>" }, { ssmParameter: "<name>" }, { file: "<path>" } or "file:<path>"',
    ),
  },
);
export type TlsMaterialRef = z.output<typeof TlsMaterialRef>;

export const TlsSetting = z
  .object({
    /** The client certificate (PEM; a chain may follow the leaf) the canary presents when the server asks for one. */
    clientCertificate: TlsMaterialRef.optional().meta({
      description:
        'The client certificate (PEM; a chain may follow the leaf) the canary presents when the server asks for one; needs `clientKey`',
      defaultText: 'none',
    }),
    /** Its private key (PEM, PKCS#8 or traditional, maybe encrypted). */
    clientKey: TlsMaterialRef.optional().meta({
      description: 'Its private key (PEM, PKCS#8 or traditional, maybe encrypted)',
      defaultText: 'none',
    }),
    /** The key's passphrase, when the key is encrypted. */
    passphrase: TlsMaterialRef.optional().meta({ description: "The key's passphrase, when the key is encrypted", defaultText: 'none' }),
    /** A PEM bundle of private CAs the server's certificate may chain to, trusted beside the public roots. */
    ca: TlsMaterialRef.optional().meta({
      description:
        "A PEM bundle of private CAs trusted beside the public roots: by the runs, `login --config`, and the refresher for a delegated target's authorization server",
      defaultText: 'none: the public roots',
    }),
  })
  .strict()
  .superRefine((t, ctx) => {
    if (t.clientCertificate && !t.clientKey)
      ctx.addIssue({
        code: 'custom',
        path: ['clientKey'],
        message: 'is required with clientCertificate: reference the private key of that certificate',
      });
    if (t.clientKey && !t.clientCertificate)
      ctx.addIssue({
        code: 'custom',
        path: ['clientCertificate'],
        message: 'is required with clientKey: reference the certificate of that key',
      });
    if (t.passphrase && !t.clientKey)
      ctx.addIssue({
        code: 'custom',
        path: ['passphrase'],
        message: 'is set without clientKey: it unlocks the client key, so reference the key too',
      });
  });
export type TlsSetting = z.output<typeof TlsSetting>;

/** The setting's references by config field, in a stable order (reading, IAM grants, messages). */
export function tlsRefs(tls: TlsSetting | undefined): Array<[field: string, ref: TlsMaterialRef]> {
  if (!tls) return [];
  const fields = ['clientCertificate', 'clientKey', 'passphrase', 'ca'] as const;
  return fields.flatMap((f) => (tls[f] ? [[`tls.${f}`, tls[f]] as [string, TlsMaterialRef]] : []));
}
