// The Powertools logger every Lambda entry logs through, at module level so warm invocations reuse it. Its own file so
// that the entries that run no pass (dispatcher, webhook) do not bundle what passes need (client-node, EKS access).
import { Logger } from '@aws-lambda-powertools/logger';

export const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'sts-volume-gitops';
export const logger = new Logger({ serviceName });
