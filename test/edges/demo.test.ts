// `npm start` must keep telling the whole story: this runs the demo and checks its milestones.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runDemo } from '../../functions/cli/demo.ts';

describe('the npm start demo', () => {
  it('converges a size and a class change, recovers the infeasible resize and the infeasible class through their PRs, follows a reviewer\'s PR and a chart values PR, grows a filling volume through its growth PR, writes an autoscaler\'s size back through its PR, and ends with zero writes', async () => {
    const lines: string[] = [];
    const code = await runDemo((text) => lines.push(text));
    const output = lines.join('\n');
    assert.equal(code, 0);
    assert.match(output, /Runs as\s+User "sts-volume-gitops-demo" in group sts-volume-gitops, granted only `npx sts-volume-gitops rbac`'s 13 objects/);
    assert.match(output, /0\. Before the first pass: what check finds[\s\S]*ok +cluster\.access +permissions: all \d+ verbs the tool uses are allowed[\s\S]*0 errors/);
    // It reaches GitHub as README's App: checks write and merge queues read are verified first.
    assert.match(output, /ok +github\.permissions +checks: write: the installation has checks: write/);
    assert.match(output, /ok +github\.permissions +merge_queues: read: the installation has merge_queues: read/);
    assert.match(output, /Plan for target demo at commit/);
    // The plan names the server and what it does; a class change is planned next to a size change and converges.
    assert.match(output, /server v1\.34\.9\n\s+lowering a request above capacity \(KEP-1790 recovery\): accepted by v1\.34\.9/);
    assert.match(output, /~ db\/pg \(OrderedReady, 3 replicas\): will resize and change class, \+3\.00 USD a month\n {6}data: 10Gi -> 20Gi, class silver -> gold \[standard\] 0\/3 done/);
    assert.match(output, /~ analytics\/clickhouse \(OrderedReady, 2 replicas\): will resize, \+20\.00 USD a month\n[^\n]+\n {8}cost: \+20\.00 USD a month \(160Gi more on capped at 0\.125 USD per GiB-month\)/);
    assert.match(output, /\n {2}1 converged, 3 will change, 0 in progress, 0 blocked or failed, 0 stalled, 0 missing, 0 manifest errors\n {2}storage cost of the resizes: \+23\.80 USD a month/);
    assert.match(output, /patched PVC data-pg-0 \(replica 0\) to 20Gi and VolumeAttributesClass gold/);
    assert.match(output, /db\/pg: finished: all 3 PVCs of data reached 20Gi in VolumeAttributesClass gold/);
    // A recreation the previous pass left waiting for the old object is finished, not "resumed" as after a crash.
    assert.match(output, /db\/pg: template update set by orphan delete and recreate \(pods untouched\)/);
    assert.doesNotMatch(output, /left unfinished/);
    // A class the driver cannot reach: Infeasible per replica, and the recovery pull request proposing the class back.
    assert.match(output, /data-pg-0: failed \(request 30Gi, capacity 30Gi, class extreme, volume gold \(Infeasible\)\)/);
    assert.match(output, /Recover db\/pg data: VolumeAttributesClass extreme → gold \(modification infeasible\)/);
    assert.match(output, /-\s+volumeAttributesClassName: extreme\n\s+\+\s+volumeAttributesClassName: gold/);
    assert.match(output, /PVCs: data-pg-0 30Gi in gold, data-pg-1 30Gi in gold, data-pg-2 30Gi in gold/);
    // A class change alone is said as one: what each patch changed (the class), the class recovery's check run with
    // the class change and no size arrow or cost, and its passes done in the class (issue 30 item 9).
    assert.match(output, /db\/pg: patched PVC data-pg-0 \(replica 0\) to VolumeAttributesClass extreme\n/);
    assert.match(output, /db\/pg: patched PVC data-pg-0 \(replica 0\) to VolumeAttributesClass gold\n/);
    assert.match(output, /patched PVC data-pg-0 \(replica 0\) to 30Gi\n/, 'a size change alone is said as one');
    assert.doesNotMatch(output, /to 30Gi and VolumeAttributesClass/);
    assert.match(output, /✔ sts-volume-gitops\/validate \(demo\) on [0-9a-f]{7} — success\n {4}db\/pg: 3 PVCs class extreme → gold\n/);
    assert.match(output, /\n {6}db\/pg {8}data {6}3 {9}class extreme → gold {2}standard \(expandable\) {2}no quota {2}✅ will change class\n/);
    assert.match(output, /k8s\/db\/pg\.yaml:30 {2}notice {2}db\/pg data: will change class\n {8}VolumeAttributesClass extreme → gold on 3 PVCs \(StorageClass standard\)\n/);
    // No size change reads as none: the write-back pull request's own check (step 10) says its template catches up.
    assert.doesNotMatch(output, /30Gi → 30Gi|30Gi -> 30Gi|\+0\.00 USD/);
    assert.match(output, /\n {2}db\/pg waiting \(data 0\/3 done in extreme: 3 to be patched\)\n/);
    // The recovery pull request says what it costs, in its body and its check run, with the annotation on the line.
    assert.match(output, /Recover analytics\/clickhouse data: 100Gi → 50Gi \(expansion failed\)/);
    assert.match(output, /That adds \+7\.50 USD a month \(60Gi more on capped at 0\.125 USD per GiB-month\)\./);
    assert.match(output, /-\s+storage: 100Gi\n\s+\+\s+storage: 50Gi/);
    assert.match(output, /✔ sts-volume-gitops\/validate \(demo\) on [0-9a-f]{7} — success\n {4}analytics\/clickhouse: 2 PVCs grow 20Gi → 50Gi \(request lowered from 100Gi\); \+7\.50 USD a month\n/);
    assert.match(output, /k8s\/analytics\/clickhouse\.yaml:31 {2}notice {2}analytics\/clickhouse data: will resize\n {8}20Gi → 50Gi on 2 PVCs \(StorageClass capped\), \+7\.50 USD a month; request lowered from 100Gi/);
    // The reviewer's pull request: its check run's title, summary (the plan table, as GitHub shows it) and annotation.
    assert.match(output, /✔ sts-volume-gitops\/validate \(demo\) on [0-9a-f]{7} — success\n {4}db\/pg: 3 PVCs grow 20Gi → 30Gi; \+3\.00 USD a month\n/);
    assert.match(output, /\n {6}db\/pg {8}data {6}3 {9}20Gi → 30Gi {2}standard \(expandable\) {2}storage: 60Gi \+ 30Gi of 500Gi {2}✅ will resize\n/);
    assert.match(output, /k8s\/db\/pg\.yaml:33 {2}notice {2}db\/pg data: will resize\n {8}20Gi → 30Gi on 3 PVCs \(StorageClass standard\), \+3\.00 USD a month/);
    assert.match(output, /Check runs sts-volume-gitops\/demo\/db\/pg \(4 commits\):\n(.*\n)*? {2}[0-9a-f]{7} success 3\/3 replicas at 30Gi in gold/);
    assert.match(output, /✔ sts-volume-gitops\/validate \(demo\) on [0-9a-f]{7} — success\n {4}analytics\/vlogs-victoria-logs-single-server: 1 PVC grows 10Gi → 20Gi; \+1\.00 USD a month/);
    assert.match(output, /[0-9a-f]{7} success 1\/1 replicas at 20Gi/);
    // A volume filling up (issue 36 item 7): the tool's growth pull request with its evidence and price, merged, resized.
    assert.match(output, /9\. A volume filling up[\s\S]*?github: growth PR #\d+ opened\n/);
    assert.match(output, /\nPull request #\d+: Grow cache\/redis data: 8Gi → 12Gi \(data-redis-0 88% full\)\n {2}https:\/\/github\.com\/acme\/platform-gitops\/pull\/\d+\n {2}• data-redis-0: 7Gi of 8Gi used \(88%\), full in 2 days at 0\.5Gi a day; 58% at 12Gi\n {2}• data-redis-1: 0Gi of 8Gi used \(0%\), not filling at the last day's pace; 0% at 12Gi\n {2}The template and its 2 volumes grow from 8Gi to 12Gi\. That adds \+0\.80 USD a month \(8Gi more on standard at 0\.1 USD per GiB-month\)\.\n/);
    assert.match(output, /-\s+storage: "8Gi"\n\s+\+\s+storage: "12Gi"/);
    assert.match(output, /cache\/redis: finished: all 2 PVCs of data reached 12Gi\n[\s\S]*?\nPVCs: data-redis-0 12Gi, data-redis-1 12Gi\n/);
    // A volume an autoscaler grew outside Git: the write-back pull request where the size lives (the chart's values),
    // merged, and the next pass writes nothing.
    assert.match(output, /10\. A volume grown outside Git[\s\S]*?github: write-back PR #\d+ opened\n/);
    assert.match(output, /\nPull request #\d+: Write back analytics\/vlogs-victoria-logs-single-server server-volume: 20Gi → 30Gi \(grown outside Git\)\n {2}https:\/\/github\.com\/acme\/platform-gitops\/pull\/\d+\n {2}• the live StatefulSet's template server-volume: 20Gi\n {2}• server-volume-vlogs-victoria-logs-single-server-0: request 30Gi, capacity 30Gi \(grown outside Git\)\n {2}Nothing new: the volumes already have this size, and it is already being paid\. The 10Gi beyond Git's 20Gi across 1 volume already cost \+1\.00 USD a month\.\nThe change/);
    assert.match(output, /-\s+size: 20Gi {2}# grow it here\n\s+\+\s+size: 30Gi {2}# grow it here/);
    // The chart pull request merged before the autoscaler grew its volume: its check links the write-back, no failure;
    // the write-back's own check says its template only catches up.
    assert.match(output, /check sts-volume-gitops\/demo\/analytics\/vlogs-victoria-logs-single-server on [0-9a-f]{7}: success "server-volume: grown outside Git to 30Gi since, beyond 20Gi; write-back pull request #\d+ proposes it"/);
    assert.doesNotMatch(output, /failure "server-volume: 20Gi is not above/);
    assert.match(output, /check sts-volume-gitops\/validate \(demo\) on [0-9a-f]{7}: success "analytics\/vlogs-victoria-logs-single-server: the template catches up with its volumes, already 30Gi: nothing grows, no cost"/);
    assert.match(output, /\nThe next pass: analytics\/vlogs-victoria-logs-single-server converged; writes: Kubernetes 0, GitHub 0\.\n/);
    assert.match(output, /server-volume: 30Gi \[standard\] 1\/1 done {2}\(apps\/victoria-logs\/values-prod\.yaml:11\)/);
    assert.match(output, /4 converged, 0 in progress, 0 blocked or failed, 0 stalled, 0 missing, 0 manifest errors/);
    assert.match(output, /Writes in that pass: Kubernetes 0, GitHub 0\./);
    // README's first example: a shrink, blocked on its pull request's check at the size's line, before anyone merges it.
    assert.match(output, /2\. A pull request that shrinks a volume: blocked on its check[\s\S]*?✖ sts-volume-gitops\/validate \(demo\) on [0-9a-f]{7} — failure\n {4}db\/pg data: 5Gi is not above the current capacity of data-pg-0 \(10Gi\), data-pg-1 \(10Gi\), data-pg-2 \(10Gi\); a request can only be lowered to a value strictly above status\.capacity \(KEP-1790\)\n/);
    assert.match(output, /\n {6}sts-volume-gitops plan for demo at [0-9a-f]{7}\n/, 'the plan\'s title names the tool, not a command line');
    assert.match(output, /\n {6}db\/pg {8}data {6}3 {9}10Gi → 5Gi; class silver → gold {2}standard \(expandable\) {2}— {6}❌ blocked\n/);
    assert.match(output, /k8s\/db\/pg\.yaml:33 {2}failure {2}db\/pg data: blocked\n/);
    // A zero too many, held back by the target's guardrail, named where it is set.
    assert.match(output, /6\. A zero too many[\s\S]*?✖ sts-volume-gitops\/validate \(demo\) on [0-9a-f]{7} — failure\n {4}cache\/redis data: 80Gi is 10x the current size 8Gi, more than the 5x allowed in one change \(guardrails\.maxGrowthFactor, set on the target\)/);
    assert.match(output, /k8s\/cache\/redis\.yaml:45 {2}failure {2}cache\/redis data: blocked\n/);
    // Each pass says where the sets stand in a short line, then only the sets it changed, one a line (issue 37 item 17).
    const passLines = output.split('\n').filter((line) => /^pass \d+: /.test(line));
    assert.ok(passLines.length >= 20, `${passLines.length} passes`);
    for (const line of passLines) assert.match(line, /^pass \d+: (\d+ [a-z ]+(, |; no set changed$|$))+/, line);
    assert.ok(passLines.every((line) => line.length <= 80), passLines.join('\n'));
    assert.match(output, /\npass \d+: 3 converged, 1 failed\n {2}db\/pg failed \(data 0\/3 done in extreme: 3 failed\)\n {4}github: /, 'a pass that changed one set names that set alone');
    assert.match(output, /11\. Converged: one more pass changes nothing ===\n\npass \d+: 4 converged; no set changed\n/);
    // What GitHub renders, never its Markdown source; and the glossary's words (issue 30 item 9).
    assert.doesNotMatch(output, /\\[+()_`|]|&gt;|&lt;|&amp;|<br>|\*\*[A-Za-z]|<!--|<sub>/, 'Markdown shown as a reviewer reads it');
    assert.doesNotMatch(output, /\(s\)|(?<![\d.,/])1 (PVC|replica|annotation|commit|file|error|warning)s\b|\/month|\bready\b|in-progress/);
  });
});
