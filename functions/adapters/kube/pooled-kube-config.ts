// Connections to the API server are reused across requests. client-node 2.x gives every request whose cluster has TLS
// settings (a CA, a client certificate, or insecure-skip-tls-verify: every real cluster) a new undici Agent, so each
// call opened its own connection (a TLS handshake per call) and left it idle until undici's keep-alive timeout: 82
// calls of a steady pass were 82 connections. Here one Agent is kept per distinct TLS setting and handed to every
// request that has it.
import { createHash } from 'node:crypto';
import { KubeConfig, type RequestContext } from '@kubernetes/client-node';

type Dispatcher = Parameters<RequestContext['setDispatcher']>[0];
type DispatcherOptions = ReturnType<KubeConfig['createDispatcherOptions']>;

export class PooledKubeConfig extends KubeConfig {
  private readonly dispatchers = new Map<string, Dispatcher>();
  /** The key of the options client-node computed last; read at once by the setDispatcher call that follows it. */
  private computedKey: string | undefined;

  override createDispatcherOptions(...args: Parameters<KubeConfig['createDispatcherOptions']>): DispatcherOptions {
    const options = super.createDispatcherOptions(...args);
    this.computedKey = keyOf(options);
    return options;
  }

  override async applySecurityAuthentication(context: RequestContext): Promise<void> {
    // client-node computes the options and sets the new dispatcher in one synchronous step, so the key read here is
    // this request's, even with other requests' authentication interleaved at their awaits.
    const setDispatcher = context.setDispatcher.bind(context);
    context.setDispatcher = (fresh: Dispatcher): void => {
      const key = this.computedKey;
      this.computedKey = undefined;
      const shared = key === undefined ? undefined : this.dispatchers.get(key);
      if (shared === undefined) {
        if (key !== undefined) this.dispatchers.set(key, fresh);
        setDispatcher(fresh);
        return;
      }
      setDispatcher(shared);
      fresh.close().catch(() => undefined); // never used: it has no connection to close
    };
    await super.applySecurityAuthentication(context);
  }
}

/** The same TLS material (CA, client certificate and key, server name, verification) gives the same key. */
function keyOf(options: DispatcherOptions): string {
  return createHash('sha256').update(JSON.stringify(options)).digest('hex');
}

/** `config` itself if it already shares connections, else a copy of its clusters, users and contexts that does. */
export function pooledKubeConfig(config: KubeConfig): KubeConfig {
  if (config instanceof PooledKubeConfig) return config;
  const pooled = new PooledKubeConfig();
  copyKubeConfig(config, pooled);
  return pooled;
}

export function copyKubeConfig(from: KubeConfig, to: KubeConfig): void {
  to.loadFromOptions({ clusters: from.getClusters(), users: from.getUsers(), contexts: from.getContexts(), currentContext: from.getCurrentContext() });
}
