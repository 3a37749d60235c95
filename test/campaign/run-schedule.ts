// Runs one schedule on a fresh world: the faulty passes (in a child process when a kill is scheduled, in this process
// otherwise), then clean passes until converged, checking the invariants as it goes. Returns what it saw; a violation
// is a sentence saying which invariant broke and how.
import type { TargetRun } from '../../functions/app/run-targets.ts';
import { compareQuantities, parseQuantity } from '../../functions/domain/quantity.ts';
import { FaultPlan, type InjectionCounts } from './fault-plan.ts';
import type { ChildPool } from './child-pool.ts';
import type { Schedule } from './schedule.ts';
import { expireLease, namespace, podIdentities, startWorld, statefulSetNames, types, type World } from './world.ts';
import { expectedEnd } from './expected-end.ts';

export interface ScheduleResult {
  violations: string[];
  injected: InjectionCounts;
  /** Clean passes it took to converge (undefined when it did not). */
  passesToConverge: number | undefined;
  leaseExpiriesPlayed: number;
  /** StatefulSets absent when the faulty passes ended (a kill between the orphan delete and the create). */
  absentAfterFaults: number;
  /** PVC patches the recorder saw (dry runs included): the request-size invariant had something to check. */
  pvcPatchesSeen: number;
}

const maxCleanPasses = 30;

export async function runSchedule(schedule: Schedule, children: ChildPool): Promise<ScheduleResult> {
  const world = await startWorld(schedule.scenario);
  const plan = new FaultPlan({ kube: world.kube.faults, github: world.github.faults });
  const violations: string[] = [];
  let leaseExpiriesPlayed = 0;
  let passNumber = 0;
  try {
    const pods = podIdentities(world);
    for (const faulty of schedule.passes) {
      passNumber += 1;
      if (faulty.kill) {
        const child = await children.take();
        plan.begin(faulty.faults, faulty.kill, () => child.kill());
        await child.runPass({ configPath: world.configPath, env: world.env, holder: `faulty-${passNumber}` });
      } else {
        plan.begin(faulty.faults, undefined, undefined);
        const run = await world.pass(`faulty-${passNumber}`);
        // A pass under faults may fail; it must not crash outside runTargets' own error handling.
        void run;
      }
      plan.end();
      world.kube.tick(faulty.ticksAfter);
    }

    const absentAfterFaults = statefulSetNames.filter((name) => !world.kube.store.get(types.sts, namespace, name)).length;
    // Clean passes until the expected end is reached and a pass writes nothing.
    let passesToConverge: number | undefined;
    for (let clean = 1; clean <= maxCleanPasses; clean++) {
      passNumber += 1;
      world.kube.requestLog.reset();
      world.github.requestLog.reset();
      const run = await world.pass(`clean-${passNumber}`);
      checkNoneAbsent(world, run, `clean pass ${clean}`, violations);
      if (run.error !== undefined) violations.push(`clean pass ${clean} failed: ${run.error}`);
      if (run.report?.outcome === 'busy') {
        // A holder that died (or failed to release) keeps the Lease for up to 15 s: play that time away.
        if (expireLease(world)) leaseExpiriesPlayed += 1;
        continue;
      }
      const wrote = world.kube.requestLog.writes().length + world.github.requestLog.writes().length;
      const missing = expectedEnd(world, schedule.scenario, run);
      if (wrote === 0 && missing.length === 0) {
        passesToConverge = clean;
        break;
      }
      if (clean === maxCleanPasses) {
        violations.push(`did not converge in ${maxCleanPasses} clean passes: ${missing.join('; ') || 'writes every pass'}; last pass wrote ${describeWrites(world)}`);
      }
      world.kube.tick(2);
    }

    if (passesToConverge !== undefined) {
      world.kube.requestLog.reset();
      world.github.requestLog.reset();
      await world.pass('last');
      const writes = describeWrites(world);
      if (writes !== 'nothing') violations.push(`the pass after convergence wrote ${writes}`);
    }
    const podsAfter = podIdentities(world);
    if (JSON.stringify(podsAfter) !== JSON.stringify(pods)) violations.push(`pods restarted or rolled: ${JSON.stringify(pods)} -> ${JSON.stringify(podsAfter)}`);
    violations.push(...pvcRequestViolations(world), ...duplicateViolations(world));
    return { violations, injected: plan.counts, passesToConverge, leaseExpiriesPlayed, absentAfterFaults, pvcPatchesSeen: world.recorder.patches.length };
  } finally {
    await world.close();
  }
}

function checkNoneAbsent(world: World, run: TargetRun, when: string, violations: string[]): void {
  for (const name of statefulSetNames) {
    if (!world.kube.store.get(types.sts, namespace, name)) {
      violations.push(`${namespace}/${name} absent after ${when} (outcome ${run.report?.outcome ?? run.error ?? '?'})`);
    }
  }
}

function describeWrites(world: World): string {
  const writes = [
    ...world.kube.requestLog.writes().map((w) => `kube ${w.verb} ${w.resource}${w.subresource ? `/${w.subresource}` : ''} ${w.name ?? ''}`),
    ...world.github.requestLog.writes().map((w) => `github ${w.operation}`),
  ];
  return writes.length === 0 ? 'nothing' : writes.join(', ');
}

/** KEP-1790: a PVC request is only ever lowered to a value strictly above its capacity; never at or below. */
function pvcRequestViolations(world: World): string[] {
  return world.recorder.patches.flatMap((patch) => {
    if (patch.storage === undefined || patch.capacity === undefined) return [];
    if (compareQuantities(parseQuantity(patch.storage), parseQuantity(patch.capacity)) > 0) return [];
    return [`PVC ${patch.namespace}/${patch.name} patched${patch.dryRun ? ' (dry run)' : ''} to ${patch.storage}, at or below its capacity ${patch.capacity}`];
  });
}

/** One comment per marker per PR, no status written twice in a row identically, one recovery PR per head. */
function duplicateViolations(world: World): string[] {
  const found: string[] = [];
  const markers = new Map<string, number>();
  for (const comment of world.github.state.comments) {
    const marker = /^<!-- sts-volume-gitops:[^>]*-->/.exec(comment.body)?.[0];
    if (marker === undefined || marker.includes(':hash:')) continue;
    const key = `#${comment.issue} ${marker}`;
    markers.set(key, (markers.get(key) ?? 0) + 1);
  }
  for (const [key, count] of markers) if (count > 1) found.push(`${count} comments ${key}`);
  const lastBySha = new Map<string, string>();
  for (const status of world.github.state.statuses) {
    const key = `${status.sha.slice(0, 8)} ${status.context}`;
    // The same state and description with another link (the recovery PR opened a pass later) is a real change.
    const value = `${status.state}: ${status.description ?? ''} (${status.targetUrl ?? 'no link'})`;
    if (lastBySha.get(key) === value) found.push(`status ${key} written twice in a row: ${value}`);
    lastBySha.set(key, value);
  }
  const heads = new Map<string, number>();
  for (const pull of world.github.state.pulls) {
    if (pull.head.startsWith('sts-volume-gitops/recover/')) heads.set(pull.head, (heads.get(pull.head) ?? 0) + 1);
  }
  for (const [head, count] of heads) if (count > 1) found.push(`${count} recovery pull requests from ${head}`);
  return found;
}
