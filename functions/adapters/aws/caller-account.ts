// The AWS account this process's credentials belong to (STS GetCallerIdentity, which needs no permission): the account
// of every EKS cluster a target reaches without a roleArn (domain/cluster-key.ts). Asked once, when first needed.
import { GetCallerIdentityCommand, STSClient, type STSClientConfig } from '@aws-sdk/client-sts';

export function callerAccountOnce(clientConfig: STSClientConfig = {}): () => Promise<string> {
  let asked: Promise<string> | undefined;
  return () => {
    asked ??= new STSClient(clientConfig).send(new GetCallerIdentityCommand({})).then((answer) => {
      if (answer.Account === undefined) throw new Error('STS GetCallerIdentity named no account');
      return answer.Account;
    }).catch((error: unknown) => {
      // A failure is not kept: the next call asks again.
      asked = undefined;
      throw new Error(`cannot tell which AWS account this runs in (STS GetCallerIdentity): ${(error as Error).message}`, { cause: error });
    });
    return asked;
  };
}
