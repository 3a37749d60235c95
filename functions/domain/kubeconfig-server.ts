// The API server a kubeconfig context points at (pure, over the file's text): two contexts, or two files, naming one
// server are one cluster (cluster-key.ts). Read here with js-yaml rather than client-node's loader: the dispatcher and
// the webhook, which group messages by cluster, ship without the Kubernetes client (test/edges/bundle-contents.test.ts).
// The fields are the kubeconfig's own (clientcmd's v1 Config): `current-context`, `contexts[].context.cluster`,
// `clusters[].cluster.server`. Undefined when the text does not say: the pass, reading it with client-node, says why.
import * as jsYaml from 'js-yaml';

/** `field` of the item of `list` named `name` (`contexts[name=prod].context`), when it is an object. */
function entry(list: unknown, name: unknown, field: string): Record<string, unknown> | undefined {
  if (!Array.isArray(list)) return undefined;
  const found = (list as unknown[]).find((item): item is Record<string, unknown> => typeof item === 'object' && item !== null && (item as Record<string, unknown>).name === name);
  const value = found?.[field];
  return typeof value === 'object' && value !== null ? value as Record<string, unknown> : undefined;
}

export function kubeconfigServerIn(text: string, context: string | undefined): string | undefined {
  let document: unknown;
  try {
    document = jsYaml.load(text);
  } catch {
    return undefined;
  }
  if (typeof document !== 'object' || document === null) return undefined;
  const config = document as Record<string, unknown>;
  const cluster = entry(config.contexts, context ?? config['current-context'], 'context')?.cluster;
  const server = entry(config.clusters, cluster, 'cluster')?.server;
  return typeof server === 'string' && server !== '' ? server : undefined;
}
