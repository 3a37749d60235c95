// Whether an App installation receives merge queues' commits (pure): ok when granted, an error when a ruleset puts
// the branch behind a merge queue without it, a warning otherwise (a classic protection's queue cannot be seen).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { judgeMergeQueuePermission } from '../../functions/check/merge-queue-permission.ts';

it('judges the Merge queues permission against the branch\'s rules', () => {
  const judge = (granted: Record<string, string>, rules: Array<{ type: string }> | undefined): [string, string] => {
    const result = judgeMergeQueuePermission({ granted, branch: 'main', appId: 7, rules });
    return [result.level, result.message];
  };
  assert.equal(judge({ merge_queues: 'read' }, undefined)[0], 'ok');
  assert.equal(judge({ merge_queues: 'write' }, [{ type: 'merge_queue' }])[0], 'ok');
  assert.deepEqual(judge({}, [{ type: 'pull_request' }, { type: 'merge_queue' }])[0], 'error');
  const [level, message] = judge({ checks: 'write' }, [{ type: 'pull_request' }]);
  assert.equal(level, 'warning');
  assert.match(message, /no ruleset puts main behind a merge queue/);
  assert.match(judge({}, undefined)[1], /the branch's rules could not be read/);
});
