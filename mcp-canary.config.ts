/**
 * The example fleet `infra/app.ts` deploys (`npm run synth`, `npx cdk deploy --all`): three MCP
 * endpoints probed from three regions, credentials by reference only. Copy it and change the targets.
 *
 * Each credential is stored once, in the home region, under `mcp-canary/` (SSM: `/mcp-canary/`), and
 * referenced by ARN: every probe region reads that one copy. Best an SSM SecureString parameter (free
 * to store); a Secrets Manager secret when you want rotation ($0.40 a month). A plain name would be read
 * in each probe region, so it would have to be stored in each (docs/deploy.md, `cdk deploy` step 3).
 */
import { defineFleet } from './functions/base/config/schema/fleet.ts';

export default defineFleet({
  homeRegion: 'us-east-1',
  probeRegions: ['us-east-1', 'eu-west-1', 'ap-southeast-2'],
  schedule: 'rate(1 minute)',
  failureThreshold: 3,
  runbookUrl: 'https://runbooks.example.com/mcp-canary',
  notify: {
    // A PagerDuty (or JSM) CloudWatch integration URL: it opens an incident on ALARM and resolves it on OK.
    pages: [{ url: 'https://events.pagerduty.example.com/integration/0123456789abcdef0123456789abcdef/enqueue' }],
    tickets: [{ email: 'mcp-tickets@example.com' }],
    canaryOwner: [{ email: 'platform-oncall@example.com' }],
    briefs: [{ email: 'mcp-briefs@example.com' }],
  },
  targets: [
    {
      name: 'rates-prod',
      url: 'https://rates.example.com/mcp',
      runbookUrl: 'https://runbooks.example.com/mcp-canary/rates-prod',
      headerSecrets: {
        Authorization: { ssmParameter: 'arn:aws:ssm:us-east-1:111122223333:parameter/mcp-canary/rates-prod', prefix: 'Bearer ' },
      },
      tool: { name: 'get_rate', arguments: { pair: 'EURUSD' }, expectJson: { rate: 1.08 } },
      degradedMs: 3000,
    },
    {
      name: 'docs-search',
      url: 'https://docs.example.com/mcp',
      headerSecrets: { 'X-Api-Key': { ssmParameter: 'arn:aws:ssm:us-east-1:111122223333:parameter/mcp-canary/docs-search/api-key' } },
      tool: { name: 'search_docs', arguments: { query: 'getting started' }, expectText: 'Getting started' },
    },
    {
      name: 'billing-legacy',
      url: 'https://billing.example.com/mcp',
      revision: '2025-11-25',
      schedule: 'rate(5 minutes)',
      probeRegions: ['us-east-1'],
      headerSecrets: {
        Authorization: {
          secretsManager: 'arn:aws:secretsmanager:us-east-1:111122223333:secret:mcp-canary/billing',
          jsonKey: 'token',
          prefix: 'Bearer ',
        },
      },
      tool: { name: 'get_invoice_status', arguments: { invoice: 'INV-0001' } },
    },
  ],
});
