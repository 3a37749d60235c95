// Conformance of the sandbox's CSI controllers: the commands recorded against real CSI sidecars (external-resizer
// v2.0.0, external-provisioner v6.0.2, csi-driver-host-path v1.17.1) in front of a real kube-apiserver v1.34.9
// (/work/shared/conformance/csi-v1.34.9; how they ran: test/conformance/csi/README.md) are played against a sandbox
// configured as that stack. Every claim's versions (its distinct states, with its volume's changes among them), every
// snapshot, every patch's answer, Event listing and volume read must match; a difference fails unless
// test/conformance/csi/allowlist.json explains it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { judge, loadCsiAllowlist, type CheckResult } from './csi/allowlist.ts';
import { compareClaimStream, compareSnapshots } from './csi/compare-states.ts';
import { replayScenarios } from './csi/play.ts';
import { loadScenario, recordingExists } from './csi/recording.ts';

const root = join(process.env.KUBE_CONFORMANCE_DIR ?? '/work/shared/conformance', 'csi-v1.34.9');

test('the sandbox\'s provisioner, resizer and modifier write what the real CSI sidecars wrote (csi-v1.34.9)', async (t) => {
  if (!recordingExists(root)) {
    t.skip(`no CSI recording at ${root}`);
    return;
  }
  const scenarios = ['a', 'b', 'c', 'd'].map((name) => loadScenario(root, name));
  const replayed = await replayScenarios(scenarios);
  const checks: CheckResult[] = [...replayed.outcomes];
  for (const scenario of scenarios) {
    for (const [claim, lines] of scenario.watches) {
      const stream = replayed.streamOf(claim);
      checks.push({ scenario: scenario.name, check: `states ${claim}`, differences: compareClaimStream(lines, stream) });
      const snapshots = scenario.snapshots.filter((s) => s.object.metadata.name === claim);
      if (snapshots.length > 0) checks.push({ scenario: scenario.name, check: `snapshots ${claim}`, differences: compareSnapshots(snapshots, stream) });
    }
  }
  const { failures, unused, allowedCount } = judge(loadCsiAllowlist(), checks);
  t.diagnostic(`${checks.length} checks, ${checks.filter((c) => c.differences.length === 0).length} identical, ${allowedCount} allowlisted differences, ${failures.length} unexplained`);
  assert.deepEqual(unused, [], 'allowlist entries that match no difference (remove them)');
  assert.equal(failures.length, 0, `differences from the recorded components:\n${failures.join('\n')}`);
});
