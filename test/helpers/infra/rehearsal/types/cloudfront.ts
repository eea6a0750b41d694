/**
 * CloudFront: moto's CloudFormation skips all of it. Origin access controls and distributions are
 * created through CloudFront's API (the template's shape translated to the API's Quantity/Items lists)
 * and read back; moto has no response headers policy API at all.
 */
import {
  CreateDistributionCommand,
  CreateOriginAccessControlCommand,
  GetDistributionConfigCommand,
  GetOriginAccessControlCommand,
  type DistributionConfig,
} from '@aws-sdk/client-cloudfront';
import { RehearsalError } from '../assembly.ts';
import { generatedId, type CreatedByRehearsal, type NotCreatable } from './handler.ts';

export const originAccessControl: CreatedByRehearsal = {
  by: 'api',
  api: 'cloudfront:CreateOriginAccessControl',
  async create(ctx) {
    const config = await ctx.props.need<Record<string, string>>('OriginAccessControlConfig');
    const out = await ctx.aws.cloudFront.send(new CreateOriginAccessControlCommand({ OriginAccessControlConfig: config as never }));
    const id = out.OriginAccessControl!.Id!;
    const read = await ctx.aws.cloudFront.send(new GetOriginAccessControlCommand({ Id: id }));
    ctx.findings.same(`${ctx.where} OriginAccessControlConfig`, read.OriginAccessControl?.OriginAccessControlConfig, config);
    return { ref: id, attributes: { Id: id } };
  },
};

export const responseHeadersPolicy: NotCreatable = {
  by: 'impossible',
  why: 'moto_server has no response headers policy API (CreateResponseHeadersPolicy answers an HTML 404) and its CloudFormation skips the type',
  checkedBy: 'test/unit/infra/status.test.ts (the public page: its security headers, CSP and HSTS, on the default behaviour)',
  async check(ctx) {
    ctx.props.skip('ResponseHeadersPolicyConfig', 'not creatable in moto; status.test.ts checks it');
    // A stand-in id for the distribution to name; moto's CreateDistribution does not look it up.
    const id = generatedId(ctx.stackName, ctx.logicalId);
    return { ref: id, attributes: { Id: id } };
  },
};

const list = <T>(items: readonly T[] | undefined) => (items === undefined ? undefined : { Quantity: items.length, Items: [...items] });

type Cfn = Record<string, unknown>;

/** Fails on a field of `o` the translation does not know: it would otherwise be dropped unseen. */
function only(o: Cfn, known: readonly string[], where: string): void {
  const unknown = Object.keys(o).filter((k) => !known.includes(k));
  if (unknown.length > 0)
    throw new RehearsalError(`${where}: distribution fields ${unknown.join(', ')} are not translated; add them in types/cloudfront.ts.`);
}

/** AWS::CloudFront::Distribution's DistributionConfig in CreateDistribution's shape. */
export function distributionConfig(c: Cfn, callerReference: string, where: string): DistributionConfig {
  only(
    c,
    [
      'Aliases',
      'Comment',
      'DefaultCacheBehavior',
      'DefaultRootObject',
      'Enabled',
      'HttpVersion',
      'IPV6Enabled',
      'Origins',
      'PriceClass',
      'ViewerCertificate',
    ],
    where,
  );
  const b = c.DefaultCacheBehavior as Cfn;
  only(
    b,
    ['AllowedMethods', 'CachedMethods', 'CachePolicyId', 'Compress', 'ResponseHeadersPolicyId', 'TargetOriginId', 'ViewerProtocolPolicy'],
    `${where} DefaultCacheBehavior`,
  );
  const origins = (c.Origins as Cfn[]).map((o) => {
    only(o, ['DomainName', 'Id', 'OriginAccessControlId', 'OriginPath', 'S3OriginConfig'], `${where} Origins`);
    return { ...o };
  });
  const allowed = b.AllowedMethods as string[] | undefined;
  return {
    CallerReference: callerReference,
    Aliases: list(c.Aliases as string[] | undefined) ?? { Quantity: 0 },
    Comment: (c.Comment as string | undefined) ?? '',
    DefaultRootObject: c.DefaultRootObject as string | undefined,
    Enabled: c.Enabled as boolean,
    HttpVersion: c.HttpVersion as never,
    IsIPV6Enabled: c.IPV6Enabled as boolean | undefined,
    PriceClass: c.PriceClass as never,
    ViewerCertificate: c.ViewerCertificate as never,
    Origins: list(origins) as never,
    DefaultCacheBehavior: {
      TargetOriginId: b.TargetOriginId as string,
      ViewerProtocolPolicy: b.ViewerProtocolPolicy as never,
      CachePolicyId: b.CachePolicyId as string | undefined,
      Compress: b.Compress as boolean | undefined,
      ResponseHeadersPolicyId: b.ResponseHeadersPolicyId as string | undefined,
      ...(allowed
        ? { AllowedMethods: { ...list(allowed)!, CachedMethods: list((b.CachedMethods as string[] | undefined) ?? ['GET', 'HEAD']) } }
        : {}),
    } as never,
  };
}

export const distribution: CreatedByRehearsal = {
  by: 'api',
  api: 'cloudfront:CreateDistribution',
  async create(ctx) {
    const cfn = await ctx.props.need<Cfn>('DistributionConfig');
    ctx.props.skip('Tags', 'tags carry no behaviour the canary relies on');
    const config = distributionConfig(cfn, generatedId(ctx.stackName, ctx.logicalId), ctx.where);
    const out = await ctx.aws.cloudFront.send(new CreateDistributionCommand({ DistributionConfig: config }));
    const id = out.Distribution!.Id!;
    const read = (await ctx.aws.cloudFront.send(new GetDistributionConfigCommand({ Id: id }))).DistributionConfig!;
    const origin = (o: { Id?: string; DomainName?: string }) => ({ Id: o.Id, DomainName: o.DomainName });
    ctx.findings.same(`${ctx.where} Origins`, read.Origins?.Items?.map(origin), config.Origins?.Items?.map(origin));
    // moto 5.2 keeps no origin's OriginAccessControlId (GetDistributionConfig leaves it out); CloudFront
    // refuses an id that names no origin access control, so the rehearsal asks for each one.
    for (const o of config.Origins?.Items ?? []) {
      if (o.OriginAccessControlId)
        await ctx.aws.cloudFront.send(new GetOriginAccessControlCommand({ Id: o.OriginAccessControlId })).catch((e: Error) => {
          ctx.findings.add(
            `${ctx.where}: origin ${o.Id} names origin access control ${o.OriginAccessControlId}, which is not deployed (${e.name})`,
          );
        });
    }
    const behaviour = (d: DistributionConfig['DefaultCacheBehavior']) => ({
      TargetOriginId: d?.TargetOriginId,
      ViewerProtocolPolicy: d?.ViewerProtocolPolicy,
      CachePolicyId: d?.CachePolicyId,
      ResponseHeadersPolicyId: d?.ResponseHeadersPolicyId,
      AllowedMethods: [...(d?.AllowedMethods?.Items ?? [])].sort(),
    });
    ctx.findings.same(`${ctx.where} DefaultCacheBehavior`, behaviour(read.DefaultCacheBehavior), behaviour(config.DefaultCacheBehavior));
    for (const p of ['DefaultRootObject', 'Enabled', 'PriceClass', 'Comment', 'HttpVersion', 'IsIPV6Enabled'] as const)
      if (config[p] !== undefined) ctx.findings.same(`${ctx.where} ${p}`, read[p], config[p]);
    return { ref: id, attributes: { Id: id, DomainName: out.Distribution!.DomainName! } };
  },
};
