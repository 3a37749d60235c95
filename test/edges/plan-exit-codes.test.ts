// Issue 37, item 10: `plan --detailed-exitcode` exits as terraform's: 0 no changes, 1 an error (blocked, bad usage or
// configuration), 2 changes present; and `plan --help` has a legend for the markers its lines start with. The CLI
// runs as a child process against both sandboxes seeded from examples/.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { renderCommandHelp } from '../../functions/cli/command-line.ts';
import { commandTable } from '../../functions/cli/command-table.ts';
import { markerLegend, outcomeMarkers } from '../../functions/cli/plan-markers.ts';
import { startCheckSandboxes, type CheckSandboxes } from '../support/check-sandboxes.ts';

describe('plan --detailed-exitcode', () => {
  let sandboxes: CheckSandboxes;
  before(async () => {
    sandboxes = await startCheckSandboxes();
  });
  after(() => sandboxes.close());

  it('exits 2 when the plan has changes, 0 when it has none, 1 when something is blocked or the usage or configuration is bad', async () => {
    const changes = await sandboxes.configFile('changes');
    const planned = await sandboxes.cli(['plan', '--config', changes, '--detailed-exitcode']);
    assert.equal(planned.code, 2, planned.stdout + planned.stderr);
    assert.match(planned.stdout, /~ db\/pg .*: will resize/);
    assert.equal((await sandboxes.cli(['plan', '--config', changes])).code, 0, 'without the flag, changes are exit 0 as before');

    // Only the values file's size, which the cluster has already: nothing to change.
    const none = await sandboxes.configFile('no-changes', { edit: (t) => t.replace('paths: ["k8s/**/*.yaml"]', 'paths: ["k8s/db/configmap.yaml"]') });
    const unchanged = await sandboxes.cli(['plan', '--config', none, '--detailed-exitcode']);
    assert.equal(unchanged.code, 0, unchanged.stdout + unchanged.stderr);
    assert.match(unchanged.stdout, /= analytics\/vlogs-victoria-logs-single-server .*: converged/);

    const blocked = await sandboxes.configFile('blocked', { edit: (t) => t.replace('pullRequests:', 'guardrails: { maxSize: 2Gi }\n    pullRequests:') });
    assert.equal((await sandboxes.cli(['plan', '--config', blocked, '--detailed-exitcode'])).code, 1);
    assert.equal((await sandboxes.cli(['plan', '--detailed-exitcode', '--bogus'])).code, 1, 'bad usage is an error: 1, not 2 (changes)');
    assert.equal((await sandboxes.cli(['plan', '--detailed-exitcode', '--config', '/nonexistent.yaml'])).code, 1);
  });

  it('plan --help explains every marker the report uses', () => {
    const help = renderCommandHelp(commandTable.plan);
    assert.match(help, /--detailed-exitcode +exit codes as terraform plan -detailed-exitcode: 0 no changes, 1 error/);
    for (const marker of new Set(Object.values(outcomeMarkers))) {
      assert.ok(markerLegend.some(([m]) => m === marker), `the legend explains ${marker}`);
      assert.ok(help.includes(`${marker} `), `plan --help shows ${marker}`);
    }
    assert.match(help.replace(/\s+/g, ' '), /Markers: ~ will change \(a plan\), or in progress; = converged: nothing to do; x blocked, or failed for good/);
  });
});
