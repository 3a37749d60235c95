// infra/README.md's metrics paragraph (step 7) is where an operator learns what to look for in CloudWatch: it names
// every metric the functions publish, read off the code that publishes them, so a count added there is not left
// undocumented (RefusedRecreationRecords and GitHubItemsFailed were); and its Logs Insights query for the summaries
// finds the lines the dashboard's table counts ("target failed after its pass" included, which `= "target failed"` missed).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { passesByTargetQuery } from '../../infra/dashboard.ts';
import { passCountNames, webhookMetricNames } from '../../infra/metrics.ts';

const infraReadme = readFileSync(new URL('../../infra/README.md', import.meta.url), 'utf8');

/** The paragraph that lists the metrics: from "Metrics (CloudWatch" to the next blank line. */
function metricsParagraph(text: string): string {
  const start = text.indexOf('Metrics (CloudWatch');
  assert.ok(start >= 0, 'infra/README.md has a paragraph starting "Metrics (CloudWatch"');
  const end = text.indexOf('\n\n', start);
  return text.slice(start, end < 0 ? undefined : end);
}

describe('the metrics in infra/README.md', () => {
  it('names every metric the worker and the webhook publish', () => {
    const paragraph = metricsParagraph(infraReadme);
    const published = ['Passes', 'PassDuration', ...passCountNames, ...Object.values(webhookMetricNames)];
    const missing = published.filter((name) => !paragraph.includes(`\`${name}\``));
    assert.deepEqual(missing, [], `infra/README.md's metrics paragraph must name ${missing.join(', ')}`);
  });

  it('gives a Logs Insights query that filters the worker\'s summary lines as the dashboard does', () => {
    const dashboardFilter = passesByTargetQuery.find((line) => line.startsWith('filter '));
    assert.ok(dashboardFilter);
    const block = /```\nfields @timestamp[^`]*```/.exec(infraReadme)?.[0] ?? '';
    assert.ok(block.includes(dashboardFilter), `infra/README.md's summary query must filter with: ${dashboardFilter}\n${block}`);
  });
});
