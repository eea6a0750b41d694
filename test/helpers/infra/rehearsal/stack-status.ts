/**
 * CreateStack and the wait for its end, with the SDK's own waiter (first check at once, then backoff):
 * anything but CREATE_COMPLETE fails with the stack's reason and every failed resource's.
 */
import {
  CreateStackCommand,
  DescribeStackEventsCommand,
  DescribeStacksCommand,
  waitUntilStackCreateComplete,
  type CloudFormationClient,
  type CreateStackCommandInput,
  type Stack,
} from '@aws-sdk/client-cloudformation';
import { RehearsalError } from './assembly.ts';

/** moto creates a stack within its CreateStack call; a minute is only the bound for a stuck one. */
const MAX_WAIT_SECONDS = 60;

export async function createStackAndWait(client: CloudFormationClient, input: CreateStackCommandInput): Promise<Stack> {
  const name = input.StackName!;
  await client.send(new CreateStackCommand(input));
  const waited = await waitUntilStackCreateComplete(
    { client, maxWaitTime: MAX_WAIT_SECONDS, minDelay: 1, maxDelay: 2 },
    { StackName: name },
  ).catch((e: unknown) => ({ state: 'FAILURE', reason: e }));
  const stack = (await client.send(new DescribeStacksCommand({ StackName: name }))).Stacks?.[0];
  if (waited.state !== 'SUCCESS' || stack?.StackStatus !== 'CREATE_COMPLETE') {
    const events = (await client.send(new DescribeStackEventsCommand({ StackName: name }))).StackEvents ?? [];
    const failed = events
      .filter((e) => e.ResourceStatus?.endsWith('FAILED'))
      .map((e) => `${e.LogicalResourceId} (${e.ResourceType}): ${e.ResourceStatusReason}`);
    throw new RehearsalError(
      `CloudFormation (moto) did not create ${name}: ${stack?.StackStatus ?? 'no stack'} ${stack?.StackStatusReason ?? ''}${failed.length ? `; ${failed.join('; ')}` : ''}`,
    );
  }
  return stack;
}
