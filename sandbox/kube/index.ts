// The embedded Kubernetes sandbox: API server + simulated controllers + a kubeconfig that client-node and kubectl
// use unchanged. Ticks advance the controllers deterministically; a timer does it for the demo and `sandbox kube`.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { createApiServer } from './api-server.ts';
import { AccessControl, type TokenAuthenticator, type UserInfo } from './authorization.ts';
import { controllerNames, runControllers, type ControllerName } from './controllers/index.ts';
import { createWorld, type World } from './controllers/world.ts';
import { FaultInjector } from './faults.ts';
import { listenOnLoopback } from './listen.ts';
import type { NewerServerFields } from './openapi.ts';
import { createPrometheusApi, type PrometheusAuth, type Relabelling } from './prometheus/api-server.ts';
import { VolumeStats } from './prometheus/volume-stats.ts';
import { readVolumeUsageSeed } from './prometheus/volume-usage-seed.ts';
import { RequestLog } from './request-log.ts';
import { applySeed, createSystemNamespaces, loadSeedFile, seedServerVersion } from './seed.ts';
import { defaultServerVersion, parseServerVersion, type ServerVersion } from './server-version.ts';
import { ObjectStore } from './store.ts';

export interface KubeSandboxOptions {
  /**
   * The Kubernetes version the sandbox plays (`1.34`, `1.26`, or in full `v1.34.9`): its /version, words, defaults,
   * served types and controllers (server-version.ts). Overrides the seed's `version`; the newest (1.34) by default.
   */
  version?: string;
  port?: number;
  seedFile?: string;
  seed?: unknown;
  /** Where the kubeconfig is written; a fresh temporary directory by default. */
  workDir?: string;
  now?: () => Date;
  /** Emulated feature gates, e.g. `StatefulSetUpdateVolumeClaimTemplate` (KEP-4650) to accept in-place template resizes. */
  featureGates?: string[];
  /**
   * Fields the simulated server knows beyond client-node's models, by model name (`{ V1PodSpec: ['futureField'] }`):
   * plays a cluster newer than the installed client, whose objects carry fields the client cannot describe.
   */
  newerServerFields?: NewerServerFields;
  /** The controllers `tick()` runs; all by default. A cluster without a CSI driver has no provisioner, kubelet or resizer. */
  controllers?: readonly ControllerName[];
  /** Latency of the garbage collector on orphan deletes, in ms of the sandbox clock (see World.garbageCollectorDelayMs). */
  garbageCollectorDelayMs?: number;
  /** Who may query the Prometheus API (a bearer token, or SigV4 credentials); anyone by default. */
  prometheusAuth?: PrometheusAuth;
}

/** The Prometheus-compatible API over the volumes' usage (prometheus/api-server.ts). */
export interface SandboxPrometheus {
  url: string;
  faults: FaultInjector;
  /** Every query asked so far, in order. */
  queries: string[];
  setAuth(auth: PrometheusAuth): void;
  /** Sets a volume's usage from now on, in the seed's `volumeUsage` shape (`{ namespace, claim, used, perDay }`). */
  setVolumeUsage(entry: Record<string, unknown>): void;
  /**
   * Plays a scrape whose relabelling put the kubelet's labels under other names (`{ persistentvolumeclaim: 'pvc' }`),
   * kept its own namespace label over the kubelet's, or prefixed the metric names.
   */
  setRelabelling(relabel: Relabelling): void;
}

export interface KubeSandbox {
  url: string;
  /** The version it plays. */
  server: ServerVersion;
  /** What the seed named that this version does not serve, left out or dropped (seed.ts `applySeed`). */
  seedWarnings: readonly string[];
  kubeconfigPath: string;
  kubeConfig(): KubeConfig;
  store: ObjectStore;
  world: World;
  faults: FaultInjector;
  requestLog: RequestLog;
  /** The kubelets' volume statistics, served as Prometheus serves them (seeded by `volumeUsage`). */
  prometheus: SandboxPrometheus;
  /** TCP connections the API server has accepted since it started: whether clients reuse theirs. */
  connectionsAccepted(): number;
  /**
   * A new bearer token for `user`, whom RBAC then restricts (authorization.ts), and a kubeconfig file that uses it: the
   * product runs as that identity in tests and the demo.
   */
  addIdentity(user: UserInfo): Promise<{ token: string; kubeconfigPath: string }>;
  /** Bearer tokens no identity holds are handed to `authenticate` (webhook token authentication; tests play EKS's). */
  addTokenAuthenticator(authenticate: TokenAuthenticator): void;
  /** Advances every controller by `count` ticks. */
  tick(count?: number): void;
  startTimer(intervalMs: number): void;
  stopTimer(): void;
  close(): Promise<void>;
}

export async function startKubeSandbox(options: KubeSandboxOptions = {}): Promise<KubeSandbox> {
  const now = options.now ?? (() => new Date());
  const store = new ObjectStore(now);
  const world = createWorld(store, now);
  world.garbageCollectorDelayMs = options.garbageCollectorDelayMs ?? 0;
  const running = new Set<ControllerName>(options.controllers ?? controllerNames);
  const seed = options.seed ?? (options.seedFile ? loadSeedFile(options.seedFile) : undefined);
  world.server = options.version !== undefined ? parseServerVersion(options.version) : seedServerVersion(seed) ?? defaultServerVersion;
  createSystemNamespaces(world);
  const seedWarnings = applySeed(world, seed, options.newerServerFields);
  const volumeStats = new VolumeStats(world, readVolumeUsageSeed(seed));

  const faults = new FaultInjector();
  const requestLog = new RequestLog();
  const token = randomBytes(16).toString('hex');
  const access = new AccessControl(store, token);
  const server = createApiServer({ store, faults, requestLog, access, featureGates: new Set(options.featureGates ?? []), newerFields: options.newerServerFields ?? {}, server: world.server });
  let connectionsAccepted = 0;
  server.on('connection', () => { connectionsAccepted += 1; });
  const url = await listenOnLoopback(server, options.port);
  let prometheusAuth = options.prometheusAuth;
  let relabelling: Relabelling = {};
  const prometheusFaults = new FaultInjector();
  const queries: string[] = [];
  const prometheusServer = createPrometheusApi({ stats: volumeStats, now, faults: prometheusFaults, auth: () => prometheusAuth, onQuery: (query) => queries.push(query), relabel: () => relabelling });
  const prometheus: SandboxPrometheus = {
    url: await listenOnLoopback(prometheusServer), faults: prometheusFaults, queries, setAuth: (auth) => { prometheusAuth = auth; }, setRelabelling: (relabel) => { relabelling = relabel; },
    setVolumeUsage: (entry) => {
      const [seed] = readVolumeUsageSeed({ volumeUsage: [entry] });
      if (seed) volumeStats.setUsage(seed);
    },
  };

  const workDir = options.workDir ?? await mkdtemp(join(tmpdir(), 'sts-kube-sandbox-'));
  await mkdir(workDir, { recursive: true });
  const kubeconfigPath = join(workDir, 'kubeconfig');
  await writeFile(kubeconfigPath, kubeconfigText(url, token), { mode: 0o600 });

  let timer: NodeJS.Timeout | undefined;
  const tick = (count = 1): void => {
    for (let i = 0; i < count; i++) runControllers(world, running);
  };
  const addIdentity = async (user: UserInfo): Promise<{ token: string; kubeconfigPath: string }> => {
    const userToken = randomBytes(16).toString('hex');
    access.addToken(userToken, user);
    const path = join(workDir, `kubeconfig-${user.name.replace(/[^a-zA-Z0-9.-]+/g, '-')}`);
    await writeFile(path, kubeconfigText(url, userToken, user.name), { mode: 0o600 });
    return { token: userToken, kubeconfigPath: path };
  };
  return {
    url, server: world.server, seedWarnings, kubeconfigPath, store, world, faults, requestLog, tick, addIdentity, prometheus, connectionsAccepted: () => connectionsAccepted,
    addTokenAuthenticator: (authenticate) => access.addTokenAuthenticator(authenticate),
    kubeConfig: () => {
      const config = new KubeConfig();
      config.loadFromFile(kubeconfigPath);
      return config;
    },
    startTimer: (intervalMs) => {
      timer ??= setInterval(() => tick(), intervalMs);
      timer.unref();
    },
    stopTimer: () => {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
    close: async () => {
      if (timer) clearInterval(timer);
      for (const each of [server, prometheusServer]) {
        each.closeAllConnections();
        await new Promise<void>((resolve) => each.close(() => resolve()));
      }
    },
  };
}

function kubeconfigText(url: string, token: string, userName = 'sandbox-admin'): string {
  return `apiVersion: v1
kind: Config
clusters:
  - name: sandbox
    cluster:
      server: ${url}
      insecure-skip-tls-verify: true
users:
  - name: ${JSON.stringify(userName)}
    user:
      token: ${token}
contexts:
  - name: sandbox
    context:
      cluster: sandbox
      user: ${JSON.stringify(userName)}
      namespace: default
current-context: sandbox
`;
}
