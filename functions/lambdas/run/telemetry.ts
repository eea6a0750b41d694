/**
 * One invocation's telemetry batch, wired to what the handler already has: the secret reader (for the
 * configured headers' references) and the SDK clients' own credentials (for SigV4), and stdout.
 */
import type { AwsCredentialIdentity, Provider } from '@smithy/types';
import type { Target } from '../../base/config/schema/target.ts';
import type { TelemetrySettings } from '../../base/config/schema/telemetry.ts';
import type { ResolvedHeaders } from '../../io/secrets/reader.ts';
import { TelemetryBatch } from '../../io/telemetry/batch.ts';
import { stdoutLine, type LogLine } from './log.ts';

export interface TelemetryWiring {
  readonly probeRegion: string;
  readonly secrets: { resolve(target: Target): Promise<ResolvedHeaders> };
  readonly credentials?: Provider<AwsCredentialIdentity> | undefined;
  readonly log?: LogLine;
}

export function telemetryFor(settings: TelemetrySettings, w: TelemetryWiring): TelemetryBatch {
  return new TelemetryBatch(settings, {
    probeRegion: w.probeRegion,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    credentials: w.credentials,
    log: w.log ?? stdoutLine,
    // The reader fills a target's header references; the telemetry headers are references of the same
    // kind, read through the same cache, timeout and error words (it reads `headers`, `headerSecrets`, `auth`).
    readHeaders: async () => {
      if (Object.keys(settings.headers).length === 0) return { headers: {}, secretValues: [] };
      const read = await w.secrets.resolve({ headers: {}, headerSecrets: settings.headers } as unknown as Target);
      return { headers: read.headers, secretValues: read.secretValues };
    },
  });
}
