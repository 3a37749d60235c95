// `npx cdk synth` / `npx cdk deploy` entry. Configure with environment variables (see infra/README.md).
import { App } from 'aws-cdk-lib';
import { StsVolumeGitopsStack } from './stack.ts';

const app = new App();
const clusters = (process.env.STS_EKS_CLUSTERS ?? '').split(',').filter((c) => c !== '').map((entry) => {
  const [name = '', namespaces = ''] = entry.split(':');
  return { name, namespaces: namespaces.split('+').filter((n) => n !== '') };
});
new StsVolumeGitopsStack(app, 'StsVolumeGitops', {
  configFile: process.env.STS_VOLUME_GITOPS_CONFIG_FILE ?? 'config.yaml',
  eksClusters: clusters,
  ...(process.env.STS_EVERY_MINUTES ? { everyMinutes: Number(process.env.STS_EVERY_MINUTES) } : {}),
  ...(process.env.STS_SECRETS_EXTENSION_ARN ? { secretsExtensionLayerArn: process.env.STS_SECRETS_EXTENSION_ARN } : {}),
});
