/**
 * One stack's view of what is deployed, for the intrinsic resolver: its parameters (SSM-typed ones read
 * from Parameter Store, as CloudFormation does), pseudo parameters, its resources' Ref and Fn::GetAtt
 * values (moto-created ones read through their service's API), and the exports of its region.
 */
import { GetParameterCommand } from '@aws-sdk/client-ssm';
import { RehearsalError, type AssemblyStack } from './assembly.ts';
import { URL_SUFFIX, type RegionClients } from './aws.ts';
import type { Deployment, DeployedStack } from './deployment.ts';
import type { Scope } from './intrinsics.ts';
import { HANDLERS } from './types/index.ts';

export async function ssmValue(aws: RegionClients, name: string, path: string): Promise<string> {
  const out = await aws.ssm.send(new GetParameterCommand({ Name: name, WithDecryption: true })).catch((e: Error) => {
    throw new RehearsalError(
      `${path}: SSM parameter ${name} cannot be read in ${aws.region} (${e.name}); CloudFormation would refuse the stack.`,
    );
  });
  return out.Parameter!.Value!;
}

/** Template parameters as `cdk deploy` leaves them: defaults, SSM-typed ones resolved. */
export async function stackParameters(aws: RegionClients, s: AssemblyStack): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(s.template.Parameters ?? {})) {
    if (p.Default === undefined) throw new RehearsalError(`${s.stackName}: parameter ${name} has no default, and cdk deploy passes none.`);
    if (p.Type.startsWith('AWS::SSM::Parameter::Value<')) {
      const v = await ssmValue(aws, String(p.Default), `${s.stackName}/Parameters/${name}`);
      out[name] = p.Type.includes('List<') ? v.split(',') : v;
    } else out[name] = p.Type.includes('List') ? String(p.Default).split(',') : p.Default;
  }
  return out;
}

/**
 * `flavour: 'moto'` resolves as moto's CloudFormation did (its `motoGetAtt` deviations), for comparing
 * what moto created with the template; `'cloudformation'` as AWS does, for everything else.
 */
export function stackScope(
  d: Deployment,
  s: AssemblyStack,
  deployed: DeployedStack,
  parameters: Record<string, unknown>,
  pseudo: Record<string, unknown>,
  flavour: 'cloudformation' | 'moto' = 'cloudformation',
): Scope {
  const aws = d.aws.at(s.region);
  const attributeCache = new Map<string, Promise<string | undefined>>();
  const resource = (id: string, path: string) => {
    const r = deployed.resources.get(id);
    if (r) return r;
    if (!(id in s.template.Resources))
      throw new RehearsalError(`${path}: refers to ${id}, which is no resource or parameter of ${s.stackName}.`);
    throw new RehearsalError(`${path}: refers to ${id}, which is not created (its condition is false, or it comes later).`);
  };
  return {
    template: s.template,
    pseudo: {
      'AWS::AccountId': d.aws.account,
      'AWS::Partition': d.aws.partition,
      'AWS::Region': s.region,
      'AWS::URLSuffix': URL_SUFFIX,
      'AWS::StackName': s.stackName,
      'AWS::NotificationARNs': [],
      ...pseudo,
    },
    parameters,
    async ref(id, path) {
      const r = resource(id, path);
      if (r.ref === undefined) throw new RehearsalError(`${path}: Ref ${id} (${r.type}) has no value in the rehearsal.`);
      return r.ref;
    },
    async getAtt(id, name, path) {
      const r = resource(id, path);
      if (name in r.attributes) return r.attributes[name];
      const handler = HANDLERS[r.type];
      if (r.by === 'moto' && handler?.by === 'moto' && handler.attribute && r.ref !== undefined) {
        const key = `${id}.${name}`;
        if (!attributeCache.has(key)) attributeCache.set(key, handler.attribute(aws, r.ref, name));
        const v = await attributeCache.get(key)!;
        const deviation = flavour === 'moto' ? handler.motoGetAtt?.[name] : undefined;
        if (v !== undefined) return deviation ? deviation.fromCloudFormation(v) : v;
      }
      throw new RehearsalError(
        `${path}: the rehearsal cannot read ${id}.${name} (${r.type}); add the attribute to its handler in test/helpers/infra/rehearsal/types/.`,
      );
    },
    async importValue(name, path) {
      const exported = d.exports.get(s.region);
      if (!exported?.has(name))
        throw new RehearsalError(
          `${path}: Fn::ImportValue ${name}: no stack in ${s.region} exports it; CloudFormation would refuse the stack.`,
        );
      return exported.get(name);
    },
    ssmParameter: (name, path) => ssmValue(aws, name, path),
  };
}
