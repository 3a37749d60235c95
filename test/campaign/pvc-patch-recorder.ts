// A pass-through HTTP proxy in front of the Kubernetes sandbox that records every PVC patch body the tool sends, with
// the PVC's capacity at that moment, so the campaign can check that no request at or below capacity is ever sent
// (a refused one included: the sandbox's request log keeps no bodies, and admission refusals never reach the store).
import { createServer, request as httpRequest, Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType } from '../../sandbox/kube/store.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const pvcPath = /^\/api\/v1\/namespaces\/([^/]+)\/persistentvolumeclaims\/([^/]+)$/;

export interface SentPvcPatch {
  namespace: string;
  name: string;
  storage: string | undefined;
  capacity: string | undefined;
  dryRun: boolean;
}

export interface PvcPatchRecorder {
  url: string;
  patches: SentPvcPatch[];
  close(): Promise<void>;
}

export async function startPvcPatchRecorder(kube: KubeSandbox): Promise<PvcPatchRecorder> {
  const upstream = new URL(kube.url);
  const agent = new Agent({ keepAlive: false });
  const patches: SentPvcPatch[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', kube.url);
      const match = req.method === 'PATCH' ? pvcPath.exec(url.pathname) : null;
      if (match) {
        const [namespace, name] = [decodeURIComponent(match[1] ?? ''), decodeURIComponent(match[2] ?? '')];
        const live = kube.store.get(pvcType, namespace, name);
        let storage: string | undefined;
        try {
          const parsed = JSON.parse(body.toString('utf8')) as { spec?: { resources?: { requests?: { storage?: unknown } } } };
          const value = parsed.spec?.resources?.requests?.storage;
          storage = typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
        } catch {
          storage = undefined;
        }
        patches.push({
          namespace, name, storage, dryRun: url.searchParams.getAll('dryRun').includes('All'),
          capacity: (live?.status?.capacity as { storage?: string } | undefined)?.storage,
        });
      }
      const forward = httpRequest({
        host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, agent,
        headers: { ...req.headers, host: upstream.host, 'content-length': String(body.length) },
      }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
        answer.on('error', () => res.socket?.destroy());
        answer.on('aborted', () => res.socket?.destroy());
      });
      // The sandbox cut the connection (an injected reset or lost reply): the client sees the same.
      forward.on('error', () => res.socket?.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    patches,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
