/**
 * What the CDK adds to templates. `AWS::CDK::Metadata` is CloudFormation's own record. Cross-region
 * references (`crossRegionReferences: true`) are custom resources whose Lambda writes SSM parameters in
 * the consuming region and reads them there; moto would try to invoke that Lambda in Docker, so the
 * rehearsal keeps them out of moto's template and does their work itself.
 */
import { PutParameterCommand } from '@aws-sdk/client-ssm';
import { generatedId, type CreatedByRehearsal, type NothingToCreate } from './handler.ts';

export const cdkMetadata: NothingToCreate = {
  by: 'nothing',
  why: "the CDK's version record: CloudFormation stores it with the stack, no service creates anything",
};

const PROVIDER_WHY = "the rehearsal does the provider's work itself; moto creates and the rehearsal verifies the provider function";

export const crossRegionExportWriter: CreatedByRehearsal = {
  by: 'api',
  api: 'ssm:PutParameter (in the consuming region, as the CDK writer does)',
  hiddenFromMoto: true,
  async create(ctx) {
    ctx.props.skip('ServiceToken', PROVIDER_WHY);
    const { region, exports } = await ctx.props.need<{ region: string; exports: Record<string, string> }>('WriterProps');
    for (const [name, value] of Object.entries(exports)) {
      await ctx.all.at(region).ssm.send(new PutParameterCommand({ Name: name, Value: value, Type: 'String' }));
    }
    return { ref: generatedId(ctx.stackName, ctx.logicalId) };
  },
};

export const crossRegionExportReader: CreatedByRehearsal = {
  by: 'api',
  api: 'ssm:GetParameters (the {{resolve:ssm:…}} of each import)',
  hiddenFromMoto: true,
  async create(ctx) {
    ctx.props.skip('ServiceToken', PROVIDER_WHY);
    // Resolving the props reads each `{{resolve:ssm:…}}` import: that is the reader's whole job.
    const { imports } = await ctx.props.need<{ imports: Record<string, string> }>('ReaderProps');
    return { ref: generatedId(ctx.stackName, ctx.logicalId), attributes: imports };
  },
};
