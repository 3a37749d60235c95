// What the cluster's version means for this target (pure): tested or not, whether a recovery pull request's lower size
// can be accepted (KEP-1790), whether VolumeAttributesClass exists.
import { atLeast, capabilitiesOf, type ServerVersion } from '../domain/server-capabilities.ts';
import { ok, warning, type CheckResult } from './check-result.ts';

/** The oldest version the tool is known to work with: recorded answers of a real v1.26.5 (test/conformance). */
export const oldestTestedMinor = 26;

export function judgeServerVersion(version: ServerVersion, recoveryPullRequests: boolean): CheckResult[] {
  const capabilities = capabilitiesOf(version);
  const v = version.gitVersion;
  const results: CheckResult[] = [];
  results.push(atLeast(version, oldestTestedMinor)
    ? ok('cluster.version', v, `Kubernetes ${version.major}.${version.minor}`)
    : warning('cluster.version', v, `older than the oldest version this tool is tested against (v1.${oldestTestedMinor}.5)`, `upgrade the cluster to 1.${oldestTestedMinor} or newer`));
  const recovery = {
    'ga': 'recovery from a failed expansion is GA: a recovery pull request\'s smaller size (still above the capacity) is accepted',
    'default-on': 'recovery from a failed expansion is beta and on by default: a recovery pull request\'s smaller size (still above the capacity) is accepted unless RecoverVolumeExpansionFailure was switched off',
    'feature-gate': 'recovery from a failed expansion needs the RecoverVolumeExpansionFailure feature gate (alpha before 1.32) on kube-apiserver and kube-controller-manager; without it a recovery pull request\'s smaller size is refused (the plan\'s dry run says so)',
  }[capabilities.lowerRequest];
  results.push(capabilities.lowerRequest === 'feature-gate' && recoveryPullRequests
    ? warning('cluster.recovery', v, recovery, 'enable the RecoverVolumeExpansionFailure feature gate, upgrade to 1.32 or newer, or set pullRequests.recovery: false')
    : ok('cluster.recovery', v, recovery));
  results.push(ok('cluster.volumeattributesclass', v, {
    'ga': 'VolumeAttributesClass is GA (storage.k8s.io/v1)',
    'beta-if-enabled': 'VolumeAttributesClass is beta, served only where storage.k8s.io/v1beta1 and its feature gate were switched on',
    'unsupported': 'VolumeAttributesClass is not served: templates carry no volumeAttributesClassName',
  }[capabilities.volumeAttributesClass]));
  return results;
}
