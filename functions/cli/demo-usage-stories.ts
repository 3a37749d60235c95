// The demo's usage stories (issue 36): a volume filling up, read in the Kubernetes sandbox's Prometheus, gets the
// tool's growth pull request (priced, with the evidence), merged and resized like any change; and a volume grown
// outside Git, as an autoscaler grows it (a PVC patched through client-node), gets a write-back pull request setting
// Git to the live size, after which a pass writes nothing.
import { CoreV1Api } from '@kubernetes/client-node';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import type { ProposalOutcome } from '../proposals/proposal.ts';
import type { TargetRun } from '../app/run-targets.ts';
import { mergePatch } from '../adapters/kube/api-calls.ts';
import { markdownToText } from './markdown-text.ts';
import { indent } from './demo-views.ts';
import { templateKey } from '../proposals/lifecycle/identity.ts';

/** What the stories need of the demo: its sandboxes, its printer, and its passes. */
export interface UsageStoryHost {
  kube: Pick<KubeSandbox, 'kubeConfig' | 'prometheus' | 'requestLog' | 'tick'>;
  github: Pick<GitHubSandbox, 'mergePullRequest' | 'requestLog'>;
  print: (text: string) => void;
  pass(): Promise<TargetRun>;
  passUntil(done: (run: TargetRun) => boolean): Promise<TargetRun>;
}

const redis = { namespace: 'cache', statefulSet: 'redis', template: 'data' };
const vlogs = { namespace: 'analytics', statefulSet: 'vlogs-victoria-logs-single-server', template: 'server-volume' };

/** cache/redis's first volume at 7Gi of 8Gi, filling 0.5Gi a day: above the 80% the growth policy allows. */
export async function growthStory(host: UsageStoryHost): Promise<void> {
  const { print } = host;
  host.kube.prometheus.setVolumeUsage({ namespace: redis.namespace, claim: 'data-redis-0', used: '7Gi', perDay: '0.5Gi' });
  print('The kubelet reports data-redis-0 at 7Gi of 8Gi, filling 0.5Gi a day (read through Prometheus)');
  await openShowAndMerge(host, 'growth', redis);
  const converged = await host.passUntil((r) => isConverged(r, redis));
  print(`\nPVCs: ${pvcSizes(converged, redis)}`);
}

/** The chart's one volume grown to 30Gi by an autoscaler, outside Git: the write-back pull request sets the values file to it. */
export async function writeBackStory(host: UsageStoryHost): Promise<void> {
  const { print } = host;
  const core = host.kube.kubeConfig().makeApiClient(CoreV1Api);
  const claim = `${vlogs.template}-${vlogs.statefulSet}-0`;
  await core.patchNamespacedPersistentVolumeClaim({ namespace: vlogs.namespace, name: claim, fieldManager: 'pvc-autoresizer', body: { spec: { resources: { requests: { storage: '30Gi' } } } } }, mergePatch);
  // The autoscaler's resize finishes before the tool's next pass looks, as it would between two passes a while apart.
  for (let tick = 0; tick < 20; tick++) {
    const pvc = await core.readNamespacedPersistentVolumeClaim({ namespace: vlogs.namespace, name: claim });
    if (pvc.status?.capacity?.storage === '30Gi') break;
    host.kube.tick(1);
  }
  print(`An autoscaler grew PVC ${claim} to 30Gi, patching it directly (Git still says 20Gi)`);
  await openShowAndMerge(host, 'writeBack', vlogs);
  await host.passUntil((r) => isConverged(r, vlogs) && (r.report?.writeBack ?? []).length === 0);
  host.kube.requestLog.reset();
  host.github.requestLog.reset();
  const clean = await host.pass();
  print(`\nThe next pass: ${vlogs.namespace}/${vlogs.statefulSet} ${clean.report?.statefulSets.find((s) => s.name === vlogs.statefulSet)?.outcome ?? '?'}; writes: Kubernetes ${host.kube.requestLog.writes().length}, GitHub ${host.github.requestLog.writes().length}.`);
}

type Template = typeof redis;

/** The first line of a body's cost section (growth's, write-back's): the evidence is the list before it. */
const cost = /^The template and its|^Nothing new/;

/** Passes until the tool opens its pull request of `kind` for `t`, shown as a reviewer reads it, then merged. */
async function openShowAndMerge(host: UsageStoryHost, kind: 'growth' | 'writeBack', t: Template): Promise<void> {
  const opened = (run: TargetRun): ProposalOutcome | undefined => run[kind]?.outcomes.find((o) => o.key === templateKey(t) && o.action === 'opened');
  const proposal = opened(await host.passUntil((r) => opened(r)?.pullRequest !== undefined));
  if (proposal?.pullRequest === undefined) throw new Error(`no ${kind} pull request was opened for ${templateKey(t)}`);
  showProposal(host.print, proposal);
  host.print(`\nMerging #${proposal.pullRequest}...`);
  await host.github.mergePullRequest(proposal.pullRequest);
}

function isConverged(run: TargetRun, t: Template): boolean {
  return run.report?.statefulSets.find((s) => s.namespace === t.namespace && s.name === t.statefulSet)?.outcome === 'converged';
}

function pvcSizes(run: TargetRun, t: Template): string {
  const pvcs = run.report?.statefulSets.find((s) => s.name === t.statefulSet)?.templates.find((x) => x.templateName === t.template)?.pvcs ?? [];
  return pvcs.map((p) => `${p.name} ${p.capacity ?? '?'}`).join(', ');
}

/** A proposal in a few lines: its title and address, its body's evidence (one line per replica or place) and price, its change. */
function showProposal(print: (text: string) => void, proposal: ProposalOutcome): void {
  print(`\nPull request #${proposal.pullRequest ?? '?'}: ${proposal.title ?? ''}`);
  print(`  ${proposal.pullRequestUrl ?? ''}`);
  const lines = markdownToText(proposal.body ?? '').split('\n').map((line) => line.trim());
  const costAt = lines.findIndex((line) => cost.test(line));
  for (const line of lines.slice(0, costAt + 1).filter((l) => l.startsWith('•') || cost.test(l))) print(`  ${line}`);
  print('The change (one line):');
  print(indent(proposal.diff ?? ''));
}
