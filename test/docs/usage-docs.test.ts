// README's "Usage and growth" section is where a person learns to turn growth on and what to watch: it names every
// key of the target's `growth` (read off the schema), every per-set annotation (read off set-policy.ts), and the
// signals an operator watches (read off the metrics the worker publishes), and says what is not built yet as such.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { passCountNames } from '../../infra/metrics.ts';
import { growthAnnotations } from '../../functions/usage/set-policy.ts';
import schema from '../../schemas/config.schema.json' with { type: 'json' };

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

function section(title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  assert.ok(start >= 0, `README has a section "${title}"`);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** The keys of the target's `growth` in the configuration schema. */
function growthKeys(): string[] {
  const found: string[] = [];
  const walk = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    const properties = (node as { properties?: Record<string, unknown> }).properties;
    const growth = properties?.growth as { properties?: Record<string, unknown> } | undefined;
    if (growth?.properties) found.push(...Object.keys(growth.properties));
    for (const value of Object.values(node)) walk(value);
  };
  walk(schema);
  return [...new Set(found)];
}

describe('README, "Usage and growth"', () => {
  const text = section('Usage and growth');

  it('names every key of the target\'s growth and every per-set annotation', () => {
    const keys = growthKeys();
    assert.ok(keys.includes('usedPercent') && keys.includes('openAtOnce'), `the schema's growth keys: ${keys.join(', ')}`);
    for (const key of keys) assert.match(text, new RegExp(`\\b${key}:`), `growth.${key}`);
    for (const annotation of Object.values(growthAnnotations)) assert.ok(text.includes(annotation), annotation);
  });

  it('names the signals to watch, each a metric the worker publishes', () => {
    for (const name of ['VolumesNearFull', 'UsageReadFailures', 'ProposalPullRequestsOpened', 'ProposalPullRequestsClosed']) {
      assert.ok((passCountNames as readonly string[]).includes(name), `${name} is published`);
      assert.ok(text.includes(`\`${name}\``), `the section names ${name}`);
    }
    assert.ok(text.includes('usage-read-failures'), 'and the alarm');
  });

  it('compares it with an autoscaler beside a GitOps engine, by name', () => {
    const comparison = text.slice(text.indexOf('Beside an autoscaler'));
    for (const name of ['pvc-autoresizer', 'Kubernetes-Volume-Autoscaler', 'Argo CD', 'Flux', 'write-back']) assert.ok(comparison.includes(name), name);
  });
});
