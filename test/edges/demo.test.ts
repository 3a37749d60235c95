// `npm start` must keep telling the whole story: this runs the demo and checks its milestones.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runDemo } from '../../functions/cli/demo.ts';

describe('the npm start demo', () => {
  it('converges a size and a class change, recovers the infeasible resize and the infeasible class through their PRs, follows a reviewer\'s PR and a chart values PR, and ends with zero writes', async () => {
    const lines: string[] = [];
    const code = await runDemo((text) => lines.push(text));
    const output = lines.join('\n');
    assert.equal(code, 0);
    assert.match(output, /Runs as\s+User "sts-volume-gitops-demo" in group sts-volume-gitops, granted only `sts-volume-gitops rbac`'s 13 objects/);
    assert.match(output, /0\. Before the first pass: what check finds[\s\S]*ok +cluster\.access +permissions: all \d+ verbs the tool uses are allowed[\s\S]*0 error\(s\)/);
    assert.match(output, /Plan for target demo at commit/);
    // The plan names the server and what it does; a class change is planned next to a size change and converges.
    assert.match(output, /server v1\.34\.9\n\s+lowering a request above capacity \(KEP-1790 recovery\): accepted by v1\.34\.9/);
    assert.match(output, /data: 10Gi -> 20Gi, class silver -> gold \[standard\] 0\/3 ready/);
    assert.match(output, /patched PVC data-pg-0 \(replica 0\) to 20Gi and VolumeAttributesClass gold/);
    assert.match(output, /data finished: 3\/3 at 20Gi in gold/);
    // A class the driver cannot reach: Infeasible per replica, and the recovery pull request proposing the class back.
    assert.match(output, /data-pg-0: failed \(request 30Gi, capacity 30Gi, class extreme, volume gold \(Infeasible\)\)/);
    assert.match(output, /Recover db\/pg data: VolumeAttributesClass extreme → gold \(modification infeasible\)/);
    assert.match(output, /-\s+volumeAttributesClassName: extreme\n\s+\+\s+volumeAttributesClassName: gold/);
    assert.match(output, /PVCs: data-pg-0 30Gi in gold, data-pg-1 30Gi in gold, data-pg-2 30Gi in gold/);
    assert.match(output, /Recover analytics\/clickhouse data: 100Gi → 50Gi \(expansion failed\)/);
    assert.match(output, /-\s+storage: 100Gi\n\s+\+\s+storage: 50Gi/);
    assert.match(output, /Check sts-volume-gitops\/validate \(demo\): success - db\/pg: 3 PVCs grow 20Gi -> 30Gi/);
    assert.match(output, /success 3\/3 replicas at 30Gi in gold/);
    assert.match(output, /Check sts-volume-gitops\/validate \(demo\): success - analytics\/vlogs-victoria-logs-single-server: 1 PVCs grow 10Gi -> 20Gi/);
    assert.match(output, /success 1\/1 replicas at 20Gi/);
    assert.match(output, /server-volume: 20Gi \[standard\] 1\/1 ready {2}\(apps\/victoria-logs\/values-prod\.yaml:11\)/);
    assert.match(output, /4 converged, 0 in progress, 0 blocked or failed, 0 stalled, 0 missing, 0 manifest error\(s\)/);
    assert.match(output, /Writes in that pass: Kubernetes 0, GitHub 0\./);
  });
});
