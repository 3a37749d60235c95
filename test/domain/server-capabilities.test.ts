import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  capabilitiesOf, describeCapabilities, parseServerVersion, ServerVersionError,
} from '../../functions/domain/server-capabilities.ts';

describe('parseServerVersion', () => {
  it('reads the recorded answers of v1.34.9 and v1.26.5', () => {
    // The /version bodies in ../shared/conformance (kube-v1.34.9, kube-v1.26.5).
    assert.deepEqual(parseServerVersion({ major: '1', minor: '34', gitVersion: 'v1.34.9', platform: 'linux/amd64' }), { major: 1, minor: 34, gitVersion: 'v1.34.9' });
    assert.deepEqual(parseServerVersion({ major: '1', minor: '26', gitVersion: 'v1.26.5' }), { major: 1, minor: 26, gitVersion: 'v1.26.5' });
  });

  it('reads a managed cluster\'s spelling (minor 30+, a suffixed gitVersion)', () => {
    assert.deepEqual(parseServerVersion({ major: '1', minor: '30+', gitVersion: 'v1.30.4-eks-a737599' }), { major: 1, minor: 30, gitVersion: 'v1.30.4-eks-a737599' });
    assert.deepEqual(parseServerVersion({ major: '1', minor: '33+' }), { major: 1, minor: 33, gitVersion: 'v1.33' });
  });

  it('refuses an answer without a version, quoting what it got', () => {
    assert.throws(() => parseServerVersion({ gitVersion: 'unknown' }), (error: unknown) => error instanceof ServerVersionError && /gitVersion "unknown"/.test(error.message));
  });
});

describe('capabilitiesOf', () => {
  const at = (minor: number) => capabilitiesOf({ major: 1, minor, gitVersion: `v1.${minor}.0` });

  it('lowering a request: a feature gate before 1.32, on by default in 1.32-1.33, GA from 1.34', () => {
    assert.deepEqual([26, 31, 32, 33, 34, 35].map((m) => at(m).lowerRequest), ['feature-gate', 'feature-gate', 'default-on', 'default-on', 'ga', 'ga']);
  });

  it('VolumeAttributesClass: none before 1.31, the beta API (if enabled) in 1.31-1.33, v1 from 1.34', () => {
    assert.deepEqual([26, 30, 31, 33, 34].map((m) => at(m).volumeAttributesClass), ['unsupported', 'unsupported', 'beta-if-enabled', 'beta-if-enabled', 'ga']);
    assert.deepEqual([30, 31, 34].map((m) => at(m).volumeAttributesClassApi), ['none', 'storage.k8s.io/v1beta1', 'storage.k8s.io/v1']);
    assert.equal(capabilitiesOf({ major: 2, minor: 0, gitVersion: 'v2.0.0' }).volumeAttributesClass, 'ga');
  });

  it('terminal expansion failures are *ResizeInfeasible from 1.31', () => {
    assert.deepEqual([30, 31].map((m) => at(m).infeasibleResizeStatus), [false, true]);
  });

  it('says in words what the server will do, naming it', () => {
    const [lower, vac] = describeCapabilities(at(26));
    assert.match(lower ?? '', /v1\.26\.0 accepts it only with the RecoverVolumeExpansionFailure feature gate/);
    assert.match(vac ?? '', /not changed on v1\.26\.0/);
    assert.match(describeCapabilities(at(34))[1] ?? '', /changed by v1\.34\.0 \(storage\.k8s\.io\/v1/);
  });
});
