// Where a schedule's world must end, whatever faults came before: what a fault-free run reaches. Lists what is not
// there yet (empty = the end is reached): PVC sizes, the latest status of each context, the recovery pull request.
import type { TargetRun } from '../../functions/app/run-targets.ts';
import type { Scenario } from './schedule.ts';
import { namespace, types, type World } from './world.ts';

const recoveryHead = `sts-volume-gitops/recover/demo/${namespace}/wh/data`;

export function expectedEnd(world: World, scenario: Scenario, run: TargetRun): string[] {
  const missing: string[] = [];
  if (run.error !== undefined) missing.push(`the pass failed: ${run.error}`);
  const pgSize = scenario.growPg ? '20Gi' : '10Gi';
  for (const ordinal of [0, 1]) {
    const pvc = world.kube.store.get(types.pvc, namespace, `data-pg-${ordinal}`);
    const request = (pvc?.spec as { resources?: { requests?: { storage?: string } } } | undefined)?.resources?.requests?.storage;
    const capacity = (pvc?.status as { capacity?: { storage?: string } } | undefined)?.capacity?.storage;
    if (request !== pgSize || capacity !== pgSize) missing.push(`data-pg-${ordinal} at ${request ?? '?'}/${capacity ?? '?'}, not ${pgSize}`);
  }
  const latest = (sha: string | undefined, context: string): string | undefined =>
    world.github.state.statuses.filter((s) => s.sha === sha && s.context === context).at(-1)?.state;
  if (scenario.growPg && latest(world.commits.pg, `sts-volume-gitops/demo/${namespace}/pg`) !== 'success') missing.push('pg progress status not success');
  if (scenario.growWh) {
    if (latest(world.commits.wh, `sts-volume-gitops/demo/${namespace}/wh`) !== 'failure') missing.push('wh progress status not failure');
    const open = world.github.state.pulls.filter((p) => p.state === 'open' && p.head === recoveryHead);
    if (open.length !== 1) missing.push(`${open.length} open recovery pull requests for wh`);
  }
  if (scenario.openPr && latest(world.commits.openPrHead, 'sts-volume-gitops/validate (demo)') !== 'success') missing.push('open PR check not success');
  return missing;
}
