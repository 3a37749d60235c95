// Conformance of the sandbox's kubelet: the recording of a real kubelet v1.34.9 growing a running pod's volume
// (/work/shared/conformance/node-v1.34.9; how it is played: test/conformance/node/README.md) against a sandbox
// configured as that node. The claim's versions (its distinct states, with its volume's capacity among them), the
// Events of the expansion on the claim and on the pod, the pod left running on its node, and when the node step came
// (the kubelet's next sync of the pod) must match; a difference fails unless test/conformance/node/allowlist.json
// explains it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { judge, loadCsiAllowlist, type CheckResult } from './csi/allowlist.ts';
import { compareClaimStream } from './csi/compare-states.ts';
import { compareExpansionEvents, compareNodeStepTime, comparePod } from './node/compare.ts';
import { playNodeRecording } from './node/play.ts';
import { loadNodeRecording, nodeRecordingExists } from './node/recording.ts';

const root = join(process.env.KUBE_CONFORMANCE_DIR ?? '/work/shared/conformance', 'node-v1.34.9');

test('the sandbox\'s kubelet grows a running pod\'s volume as a real kubelet did (node-v1.34.9)', async (t) => {
  if (!nodeRecordingExists(root)) {
    t.skip(`no node recording at ${root}`);
    return;
  }
  const recording = loadNodeRecording(root);
  const played = await playNodeRecording(recording);
  const scenario = 'node';
  const checks: CheckResult[] = [
    { scenario, check: `states ${recording.claimName}`, differences: compareClaimStream(recording.claim, played.claim) },
    { scenario, check: 'events of the expansion', differences: compareExpansionEvents(recording, played) },
    { scenario, check: 'pod', differences: comparePod(recording, played) },
    { scenario, check: 'node step time', differences: compareNodeStepTime(recording, played) },
  ];
  const { failures, unused, allowedCount } = judge(loadCsiAllowlist(new URL('./node/allowlist.json', import.meta.url)), checks);
  t.diagnostic(`${checks.length} checks, ${checks.filter((c) => c.differences.length === 0).length} identical, ${allowedCount} allowlisted differences, ${failures.length} unexplained`);
  assert.deepEqual(unused, [], 'allowlist entries that match no difference (remove them)');
  assert.equal(failures.length, 0, `differences from the recorded kubelet:\n${failures.join('\n')}`);
});
