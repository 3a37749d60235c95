// A KubeConfig whose requests are observed (the API-call metrics) and bounded in time (the invocation's deadline).
// client-node asks the config to authenticate each request right before sending it, which makes that hook the one
// place to see every request and give it an abort signal.
import type { KubeConfig, RequestContext } from '@kubernetes/client-node';
import { copyKubeConfig, PooledKubeConfig } from './pooled-kube-config.ts';

export type KubernetesRequestObserver = (method: string, url: string) => void;

export interface KubeRequestInstruments {
  observe?: KubernetesRequestObserver;
  /** Milliseconds the next request may take; asked per request so it can shrink with the time left. */
  timeoutMs?: () => number;
}

class InstrumentedKubeConfig extends PooledKubeConfig {
  constructor(private readonly instruments: KubeRequestInstruments) {
    super();
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    this.instruments.observe?.(context.getHttpMethod(), context.getUrl());
    if (this.instruments.timeoutMs && context.getSignal() === undefined) context.setSignal(AbortSignal.timeout(this.instruments.timeoutMs()));
    await super.applySecurityAuthentication(context);
  }
}

/** A copy of `config` (clusters, users, contexts, current context) whose requests go through `instruments`. */
export function instrumentedKubeConfig(config: KubeConfig, instruments: KubeRequestInstruments): KubeConfig {
  const instrumented = new InstrumentedKubeConfig(instruments);
  copyKubeConfig(config, instrumented);
  return instrumented;
}

/** A storage patch that is stored (not a dry run): what the PVC-patch metric counts. */
export function isPvcPatch(method: string, url: string): boolean {
  const parsed = new URL(url);
  return method === 'PATCH' && /\/persistentvolumeclaims\/[^/]+$/.test(parsed.pathname) && parsed.searchParams.get('dryRun') === null;
}
