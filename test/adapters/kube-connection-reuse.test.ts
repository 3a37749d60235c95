// A pass's calls share connections to the API server: client-node alone opens one per call whenever the cluster has
// TLS settings (here insecure-skip-tls-verify, on a real cluster its CA), see pooled-kube-config.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { HttpMethod, RequestContext } from '@kubernetes/client-node';
import { instrumentedKubeConfig } from '../../functions/adapters/kube/instrumented-kube-config.ts';
import { KubeCluster } from '../../functions/adapters/kube/kube-cluster.ts';
import { PooledKubeConfig } from '../../functions/adapters/kube/pooled-kube-config.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';

const namespaces = Array.from({ length: 6 }, (_, i) => `ns-${i}`);

describe('connections to the API server', () => {
  let kube: KubeSandbox;

  before(async () => {
    kube = await startKubeSandbox({ seed: { namespaces, storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }] } });
  });
  after(() => kube.close());

  // undici may still open a connection when a request leaves just as the last answer on an idle one ends, so the
  // bound is a fraction of the calls, not the calls in flight; without reuse every call opens one.
  it('are reused across the calls of many snapshots', async () => {
    const cluster = new KubeCluster(kube.kubeConfig(), 2);
    const opened = kube.connectionsAccepted();
    for (let i = 0; i < 5; i++) await cluster.readSnapshot(namespaces);
    const calls = 5 * (2 + 4 * namespaces.length); // /version and StorageClasses, then four lists a namespace
    const connections = kube.connectionsAccepted() - opened;
    assert.ok(connections <= calls / 4, `${connections} connections for ${calls} calls`);
  });

  it('are reused through the instrumented configuration the product runs with', async () => {
    const seen: string[] = [];
    const cluster = new KubeCluster(instrumentedKubeConfig(kube.kubeConfig(), { observe: (method) => seen.push(method), timeoutMs: () => 5000 }), 1);
    const opened = kube.connectionsAccepted();
    for (let i = 0; i < 8; i++) await cluster.readSnapshot(namespaces.slice(0, 1));
    assert.equal(seen.length, 48, '/version, StorageClasses and four lists, eight times');
    assert.ok(kube.connectionsAccepted() - opened <= 24, `${kube.connectionsAccepted() - opened} connections for 48 calls`);
  });

  it('stay apart for different TLS settings, and are shared by requests with the same', async () => {
    const config = new PooledKubeConfig();
    config.loadFromOptions({
      clusters: [
        { name: 'skip-verify', server: 'https://10.0.0.1', skipTLSVerify: true },
        { name: 'with-ca', server: 'https://10.0.0.1', caData: Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64') },
      ],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'a', cluster: 'skip-verify', user: 'u' }, { name: 'b', cluster: 'with-ca', user: 'u' }],
      currentContext: 'a',
    });
    const dispatcherFor = async (): Promise<unknown> => {
      const context = new RequestContext('https://10.0.0.1/api/v1/pods', HttpMethod.GET);
      await config.applySecurityAuthentication(context);
      return context.getDispatcher();
    };
    const first = await dispatcherFor();
    assert.ok(first !== undefined);
    assert.equal(await dispatcherFor(), first, 'the same TLS setting: the same connection pool');
    config.setCurrentContext('b');
    const withCa = await dispatcherFor();
    assert.ok(withCa !== undefined);
    assert.notEqual(withCa, first, 'another CA: another pool, never a connection verified against the wrong one');
    assert.equal(await dispatcherFor(), withCa);
  });
});
