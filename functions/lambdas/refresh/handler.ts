/**
 * The refresher Lambda (home region; see refresh.ts). Thin: clients at module scope, the work in
 * refreshGrants. A grant that cannot be renewed is a report and a metric, never a throw; a throw here
 * (a broken schedule input) is the function's Errors alarm, to the canary owner.
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SSMClient } from '@aws-sdk/client-ssm';
import { perRegion } from '../../base/common/per-region.ts';
import { readRunEnv } from '../../base/config/env/env.ts';
import { SecretReader } from '../../io/secrets/reader.ts';
import { refreshGrants, type GrantReport } from './refresh.ts';

const env = readRunEnv();
const cloudWatch = new CloudWatchClient({ region: env.homeRegion });
const secretsManager = perRegion((region) => new SecretsManagerClient({ region, maxAttempts: 2 }));
// A grant's tls.ca (the target's private CAs): a plain name where the target's runs read it (caRegion), an ARN in
// its own region; each value kept 5 minutes by its region's reader.
const ssm = perRegion((region) => new SSMClient({ region }));
const secrets = perRegion((region) => new SecretReader({ secretsManager, ssm }, { defaultRegion: region }));

export async function handler(event: unknown, context?: { awsRequestId?: string }): Promise<GrantReport[]> {
  return refreshGrants(event, { ...env, cloudWatch, secretsManager, secrets, holder: context?.awsRequestId ?? `refresher-${process.pid}` });
}
