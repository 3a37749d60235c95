// A KubeConfig that reports every request client-node sends through it (for the API-call metrics). client-node asks
// the config to authenticate each request right before sending it, which makes that hook the one place to observe.
import { KubeConfig, type RequestContext } from '@kubernetes/client-node';

export type KubernetesRequestObserver = (method: string, url: string) => void;

class CountedKubeConfig extends KubeConfig {
  constructor(private readonly observe: KubernetesRequestObserver) {
    super();
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    this.observe(context.getHttpMethod(), context.getUrl());
    await super.applySecurityAuthentication(context);
  }
}

/** A copy of `config` (clusters, users, contexts, current context) whose requests are reported to `observe`. */
export function observedKubeConfig(config: KubeConfig, observe: KubernetesRequestObserver): KubeConfig {
  const observed = new CountedKubeConfig(observe);
  observed.loadFromOptions({
    clusters: config.getClusters(), users: config.getUsers(), contexts: config.getContexts(), currentContext: config.getCurrentContext(),
  });
  return observed;
}

/** A storage patch that is stored (not a dry run): what the PVC-patch metric counts. */
export function isPvcPatch(method: string, url: string): boolean {
  const parsed = new URL(url);
  return method === 'PATCH' && /\/persistentvolumeclaims\/[^/]+$/.test(parsed.pathname) && parsed.searchParams.get('dryRun') === null;
}
