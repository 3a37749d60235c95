// A pass that finds the target's Lease held by another live pass writes nothing under it, and says so: who holds it,
// since when (its acquireTime) and until when (its renewTime + leaseDurationSeconds: a holder that stops renewing has
// lost it then). An applying one also reads the cluster and plans (dry runs, as `plan` does) so that each StatefulSet
// with a change to make keeps its progress check saying the change is waiting, and until when, rather than stale or
// silent; sets with nothing to do, or that need a person, are left to the holder's report.
import type { DesiredInput } from '../desired/desired-input.ts';
import { nodeWaitPolicy } from '../volumes/node-expansion.ts';
import { passNow, type PassContext } from '../pass-context.ts';
import { reportFromPlan, type LeaseHold, type StatefulSetReport } from '../report/pass-report.ts';
import { planWithDryRuns } from '../plan/plan-with-dry-runs.ts';
import type { LeaseState } from '../ports.ts';

/** Whether `lease` is held by a live holder other than `me` at `at` (its renewTime + leaseDurationSeconds still ahead). */
export function isHeldByOther(lease: LeaseState | undefined, me: string, at: Date): lease is LeaseState & { holder: string; renewTime: string } {
  if (!lease?.holder || lease.holder === me || !lease.renewTime) return false;
  return leaseEnd(lease.renewTime, lease.durationSeconds) > at.getTime();
}

function leaseEnd(renewTime: string, durationSeconds: number): number {
  return new Date(renewTime).getTime() + durationSeconds * 1000;
}

export function leaseHoldOf(lease: LeaseState & { holder: string; renewTime: string }, namespace: string, name: string): LeaseHold {
  return { lease: `${namespace}/${name}`, holder: lease.holder, since: lease.acquireTime, until: new Date(leaseEnd(lease.renewTime, lease.durationSeconds)).toISOString() };
}

/** `another pass (cli-vm-22824) holds the target since T1 until T2`: the report's, the CLI's and the checks' words. */
export function holdWords(hold: LeaseHold): string {
  return `another pass (${hold.holder}) holds the target${hold.since ? ` since ${hold.since}` : ''} until ${hold.until}`;
}

/** The StatefulSets with a change under way or to make, each `waiting` for the holder, in the plan's words otherwise. */
export async function waitingStatefulSets(ctx: PassContext, desired: DesiredInput, commitSha: string, hold: LeaseHold): Promise<StatefulSetReport[]> {
  const { plans, snapshot } = await planWithDryRuns(ctx, desired);
  const policy = nodeWaitPolicy(ctx.target, passNow(ctx));
  const waitingFor = holdWords(hold);
  return plans
    .map((plan) => reportFromPlan(plan, commitSha, { policy, pods: snapshot.namespaces.get(plan.namespace)?.pods ?? [] }))
    .filter((report) => report.outcome === 'in-progress')
    .map((report) => ({ ...report, outcome: 'waiting', waitingFor, notes: [...report.notes, `waiting: ${waitingFor}`] }));
}
