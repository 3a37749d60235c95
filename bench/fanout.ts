// `npm run bench:fanout`: the dispatcher -> SQS FIFO -> worker path for many targets, on the sandboxes with the real
// clients. The real dispatcher sends with the real SQS client to a local SQS endpoint; the queued records are handed
// to N concurrent worker invocations the way the event source does for a FIFO queue (a group, i.e. a cluster, is never
// in two workers at once). Each target is its own cluster: its own Kubernetes sandbox, since a cluster is known by its
// server URL (two kubeconfig files of one server are one cluster, one message group).
// Printed per N: the total time, the longest wait of a target in the queue, and that every target ran exactly once.
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { SQSRecord } from 'aws-lambda';
import { startKubeSandbox } from '../sandbox/kube/index.ts';
import { sqsTargetQueue } from '../functions/adapters/aws/target-queue.ts';
import { startLocalSqs } from '../test/lambda/local-sqs.ts';
import { lambdaContext } from '../test/lambda/lambda-context.ts';

// Quiet Lambda logs and EMF: the bench prints its own table.
process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
const { createDispatcher } = await import('../functions/lambda/dispatcher.ts');
const { createWorker } = await import('../functions/lambda/worker.ts');

const targets = Number(process.env.BENCH_TARGETS ?? 50);
const workerCounts = (process.env.BENCH_WORKERS ?? '1,5,10').split(',').map(Number);

function manifest(namespace: string): string {
  return JSON.stringify({
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', namespace },
    spec: {
      replicas: 2, serviceName: 'db', selector: { matchLabels: { app: 'db' } },
      template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '10Gi' } } } }],
    },
  });
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'sts-bench-fanout-'));
  const namespaces = Array.from({ length: targets }, (_, i) => `t-${String(i).padStart(2, '0')}`);
  const clusters = await Promise.all(namespaces.map((ns) => startKubeSandbox({
    workDir: join(dir, 'kube', ns),
    seed: { namespaces: [ns, `${ns}-state`], storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }], statefulSets: [JSON.parse(manifest(ns)) as Record<string, unknown>] },
  })));
  const sqs = await startLocalSqs();
  let config = 'targets:\n';
  for (const [index, ns] of namespaces.entries()) {
    await mkdir(join(dir, 'repos', ns), { recursive: true });
    await writeFile(join(dir, 'repos', ns, 'db.yaml'), manifest(ns));
    const kubeconfig = join(dir, 'kubeconfigs', `${ns}.yaml`);
    await mkdir(join(dir, 'kubeconfigs'), { recursive: true });
    await copyFile(clusters[index]!.kubeconfigPath, kubeconfig);
    config += `  - name: ${ns}\n    source: { local: { directory: ${JSON.stringify(join(dir, 'repos', ns))}, paths: ["**/*.yaml"] } }\n`
      + `    cluster: { kubeconfig: { path: ${JSON.stringify(kubeconfig)} } }\n    namespaces: { default: ${ns}, state: ${ns}-state, allow: [${ns}] }\n`;
  }
  const configFile = join(dir, 'config.yaml');
  await writeFile(configFile, config);
  const env = { STS_VOLUME_GITOPS_CONFIG: configFile, STS_VOLUME_GITOPS_SCHEDULE_MINUTES: '5' };
  const queue = () => sqsTargetQueue(sqs.queueUrl, { endpoint: sqs.endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'AKIDBENCH', secretAccessKey: 'bench' } });
  const worker = createWorker({ env });

  process.stdout.write(`dispatcher -> SQS FIFO -> worker, ${targets} targets (one cluster each, quiet passes):\n`);
  process.stdout.write(`  ${'workers'.padEnd(8)} ${'dispatch ms'.padStart(12)} ${'total ms'.padStart(10)} ${'longest wait ms'.padStart(16)} ${'slowest pass ms'.padStart(16)} ${'ran once'.padStart(9)} failures\n`);
  let slot = 0;
  // Pass times measured one at a time (uncontended): what each target costs a worker of its own.
  const serialPassMs: number[] = [];
  for (const workers of workerCounts) {
    const t0 = performance.now();
    // A new schedule slot per round, so the FIFO deduplication lets the round's messages in.
    await createDispatcher({ queue, env, now: () => (slot += 1) * 300_000 })({}, lambdaContext('dispatcher'));
    const dispatched = performance.now();
    const pending: SQSRecord[] = sqs.drain();
    const inFlight = new Set<string>();
    const ran = new Map<string, number>();
    let longestWait = 0;
    let slowest = 0;
    let failures = 0;
    const loop = async (): Promise<void> => {
      for (;;) {
        const index = pending.findIndex((r) => !inFlight.has(r.attributes.MessageGroupId ?? ''));
        if (index < 0) {
          if (pending.length === 0) return;
          await new Promise((resolve) => setTimeout(resolve, 1));
          continue;
        }
        const [record] = pending.splice(index, 1);
        if (!record) continue;
        const group = record.attributes.MessageGroupId ?? '';
        inFlight.add(group);
        const started = performance.now();
        longestWait = Math.max(longestWait, started - dispatched);
        const answer = await worker({ Records: [record] }, lambdaContext('worker'));
        slowest = Math.max(slowest, performance.now() - started);
        if (workers === 1) serialPassMs.push(performance.now() - started);
        failures += answer.batchItemFailures.length;
        const { target } = JSON.parse(record.body) as { target: string };
        ran.set(target, (ran.get(target) ?? 0) + 1);
        inFlight.delete(group);
      }
    };
    await Promise.all(Array.from({ length: workers }, loop));
    const total = performance.now() - t0;
    const once = namespaces.every((ns) => ran.get(ns) === 1) ? 'yes' : 'NO';
    process.stdout.write(`  ${String(workers).padEnd(8)} ${(dispatched - t0).toFixed(0).padStart(12)} ${total.toFixed(0).padStart(10)} ${longestWait.toFixed(0).padStart(16)} ${slowest.toFixed(0).padStart(16)} ${once.padStart(9)} ${failures}\n`);
  }
  if (serialPassMs.length > 0) {
    process.stdout.write(`\nProjected on Lambda (each worker its own CPU), from the ${serialPassMs.length} pass times measured one at a time:\n`);
    for (const workers of [1, 5, 10, 25, 50]) {
      // The event source hands the next message to the first free worker, in queue order (list scheduling).
      const free = Array.from({ length: workers }, () => 0);
      let lastStart = 0;
      for (const ms of serialPassMs) {
        const index = free.indexOf(Math.min(...free));
        lastStart = Math.max(lastStart, free[index] ?? 0);
        free[index] = (free[index] ?? 0) + ms;
      }
      process.stdout.write(`  ${String(workers).padEnd(8)} total ${Math.max(...free).toFixed(0).padStart(6)} ms, last target starts after ${lastStart.toFixed(0)} ms\n`);
    }
  }
  process.stdout.write('  (one process on a shared machine: the workers share its CPU, so more workers help as far as passes wait on I/O;\n'
    + '   on Lambda each worker has its own. "longest wait" is the time the last target waited in the queue.)\n');
  await sqs.close();
  await Promise.all(clusters.map((cluster) => cluster.close()));
  await rm(dir, { recursive: true, force: true });
}

await main();
