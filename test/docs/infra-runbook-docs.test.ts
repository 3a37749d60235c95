// infra/README.md's runbook takes its names from the stack's outputs (issue 37 item 7): every output infra/outputs.ts
// makes is named there, no command asks for a name "from the console", and the deploy steps say how to make the check
// required (pinned to the App) and what to do with clusters in several regions.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { runbookOutputNames } from '../../infra/outputs.ts';

const infraReadme = readFileSync(new URL('../../infra/README.md', import.meta.url), 'utf8');

it('infra/README.md names every runbook output and asks for nothing from the console', () => {
  const missing = runbookOutputNames.filter((name) => !infraReadme.includes(`\`${name}\``));
  assert.deepEqual(missing, [], `infra/README.md must name the outputs ${missing.join(', ')}`);
  assert.doesNotMatch(infraReadme, /<[^>]*from the console>|<the Targets queue URL>|<the worker's log group/);
});

it('infra/README.md says to make the check required, pinned to the App, and how to deploy for clusters in several regions', () => {
  assert.match(infraReadme, /#### Make the check required\n[\s\S]*?"Require status checks to pass"[\s\S]*?`sts-volume-gitops\/validate \(<target>\)`[\s\S]*?choosing the App as its source/);
  assert.match(infraReadme, /## Clusters in several regions\n[\s\S]*?one stack per region/);
});
