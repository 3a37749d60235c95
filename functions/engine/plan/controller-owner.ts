// StatefulSets another object controls (a `controller: true` ownerReference: Prometheus Operator, Strimzi, ECK and
// others write StatefulSets from their own resources) are their operator's: this tool never orphan-deletes, recreates
// or annotates one. A change to such a set is blocked, naming the owner, unless a size source declares the owner
// (`ownedBy`): then only the PVCs are grown. Pure.
import type { SizeSourceConfig } from '../../domain/config.ts';
import type { ControllerOwner, LiveStatefulSet } from '../../domain/live-state.ts';

export type OwnershipCode = 'controlled-by-owner' | 'owner-mismatch';

export type Ownership =
  /** No other controller: the template is this tool's to update. */
  | { kind: 'free' }
  /** Declared and found: the operator writes the StatefulSet, this tool grows its PVCs only. */
  | { kind: 'operator'; owner: ControllerOwner }
  | { kind: 'blocked'; code: OwnershipCode; message: string };

export function describeOwner(owner: ControllerOwner): string {
  return `${owner.kind} ${owner.name} (${owner.apiVersion})`;
}

function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** Who may write `live`, given the size sources that map it (undefined for a set from a manifest). */
export function ownershipOf(live: LiveStatefulSet, sizedBy: readonly SizeSourceConfig[] | undefined): Ownership {
  const owner = live.controllerOwner;
  // The config makes every mapping of one set agree on ownedBy.
  const declared = sizedBy?.find((s) => s.ownedBy !== undefined)?.ownedBy;
  if (!owner && !declared) return { kind: 'free' };
  if (!owner && declared) {
    return {
      kind: 'blocked', code: 'owner-mismatch',
      message: `the size source declares the StatefulSet is written by an operator (ownedBy ${declared.kind}), but the live StatefulSet has no `
        + 'controller ownerReference; remove ownedBy from the size source so this tool updates its template itself, or fix its statefulSet',
    };
  }
  if (owner && !declared) {
    return {
      kind: 'blocked', code: 'controlled-by-owner',
      message: `the StatefulSet is controlled by ${describeOwner(owner)}: its operator writes it, and this tool never deletes, recreates `
        + `or annotates an object another controller owns. Change the size in the ${owner.kind} resource; if the value mapped here is what `
        + `that resource is rendered from, declare it on the size source (ownedBy: { kind: ${owner.kind} }) and only the PVCs are grown`,
    };
  }
  if (owner && declared && (owner.kind !== declared.kind || (declared.group !== undefined && groupOf(owner.apiVersion) !== declared.group))) {
    const wanted = declared.group === undefined ? declared.kind : `${declared.kind} (${declared.group})`;
    return {
      kind: 'blocked', code: 'owner-mismatch',
      message: `the size source declares the StatefulSet is written from a resource of kind ${wanted}, but it is controlled by ${describeOwner(owner)}; `
        + 'fix ownedBy on the size source',
    };
  }
  return owner ? { kind: 'operator', owner } : { kind: 'free' };
}
