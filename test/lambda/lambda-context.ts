// A Lambda-shaped context for driving handlers in-process.
import type { Context } from 'aws-lambda';

export function lambdaContext(name: string, timeoutMs = 300_000): Context {
  const deadline = Date.now() + timeoutMs;
  const id = `req-${Math.random().toString(36).slice(2, 10)}`;
  return {
    awsRequestId: id, functionName: name, functionVersion: '$LATEST', memoryLimitInMB: '512',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:${name}`,
    logGroupName: `/aws/lambda/${name}`, logStreamName: '2026/11/23/[$LATEST]0123456789abcdef', callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined, fail: () => undefined, succeed: () => undefined,
  };
}
