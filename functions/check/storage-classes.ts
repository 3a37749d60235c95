// Whether the StorageClasses the target's templates use exist and allow expansion (pure): KEP-0661 refuses a resize
// whose class cannot expand, and the plan blocks it; check says so before the first pull request does.
import type { LiveStorageClass } from '../domain/live-state.ts';
import { error, ok, warning, type CheckResult } from './check-result.ts';
import { closestName } from '../domain/similar-names.ts';

export interface ClassUsage {
  /** undefined: the template names no class (the cluster's default applies). */
  className: string | undefined;
  /** `db/pg data (k8s/db/pg.yaml:31)`. */
  usedBy: string;
}

export function judgeStorageClasses(usages: readonly ClassUsage[], classes: readonly LiveStorageClass[]): CheckResult[] {
  const defaultClass = classes.find((c) => c.isDefault);
  const byClass = new Map<string, string[]>();
  const results: CheckResult[] = [];
  for (const usage of usages) {
    const name = usage.className ?? defaultClass?.name;
    if (name === undefined) {
      results.push(error('cluster.storageclass', usage.usedBy, 'the template names no storageClassName and the cluster has no default StorageClass',
        'name the class in the template (spec.storageClassName) or mark one class default (annotation storageclass.kubernetes.io/is-default-class: "true")'));
      continue;
    }
    byClass.set(name, [...(byClass.get(name) ?? []), usage.usedBy]);
  }
  for (const [name, users] of [...byClass].sort(([a], [b]) => a.localeCompare(b))) {
    const storageClass = classes.find((c) => c.name === name);
    const used = `used by ${users.slice(0, 3).join(', ')}${users.length > 3 ? ` and ${users.length - 3} more` : ''}`;
    if (!storageClass) {
      const meant = closestName(name, classes.map((c) => c.name));
      results.push(error('cluster.storageclass', name, `StorageClass ${name} does not exist (${used}); its volumes cannot be resized${meant === undefined ? '' : `; did you mean ${meant}?`}`,
        meant === undefined ? `create StorageClass ${name} (kubectl get storageclass lists those there are) or change the templates to a class that exists`
          : `change the templates to ${meant} (or create StorageClass ${name})`));
    } else if (!storageClass.allowVolumeExpansion) {
      results.push(error('cluster.storageclass', name, `StorageClass ${name} does not allow volume expansion (${used}); resizes will be blocked`,
        `if its provisioner can expand volumes, set allowVolumeExpansion: true on StorageClass ${name} (kubectl patch storageclass ${name} -p '{"allowVolumeExpansion":true}')`));
    } else {
      results.push(ok('cluster.storageclass', name, `exists and allows expansion (${used})`));
    }
  }
  if (usages.length === 0) results.push(warning('cluster.storageclass', 'templates', 'no volumeClaimTemplate found in the target\'s files, so no StorageClass was checked'));
  return results;
}
