// Guardrails, prices and ownedBy in the configuration: the schema and the checks parseConfig adds.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseConfig } from '../../functions/domain/config.ts';
import { configProblems as problemsOf, localTargetConfig } from '../support/config-text.ts';

const config = (extra: string): string => localTargetConfig(extra, ['monitoring']);

const prometheusSource = `      - file: apps/monitoring/values-prod.yaml
        path: prometheus.prometheusSpec.storageSpec.volumeClaimTemplate.spec.resources.requests.storage
        statefulSet: monitoring/prometheus-kube-prometheus-stack-prometheus
        template: prometheus-kube-prometheus-stack-prometheus-db`;

describe('guardrails and prices in the configuration', () => {
  it('reads target guardrails, prices (USD unless said) and a size source\'s own limits and owner', () => {
    const parsed = parseConfig(config(`    guardrails: { maxSize: 2Ti, maxGrowthFactor: 4, maxMonthlyIncrease: 250 }
    prices: { perGiBMonth: { gp3: 0.08, io2: 0.125 } }
    sizeSources:
${prometheusSource}
        guardrails: { maxSize: 8Ti }
        ownedBy: { kind: Prometheus, group: monitoring.coreos.com }
`), 'test.yaml', '/etc/sts');
    const target = parsed.targets[0];
    assert.deepEqual(target?.guardrails, { maxSize: '2Ti', maxGrowthFactor: 4, maxMonthlyIncrease: 250 });
    assert.deepEqual(target?.prices, { currency: 'USD', perGiBMonth: { gp3: 0.08, io2: 0.125 } });
    assert.deepEqual(target?.sizeSources[0]?.guardrails, { maxSize: '8Ti' });
    assert.deepEqual(target?.sizeSources[0]?.ownedBy, { kind: 'Prometheus', group: 'monitoring.coreos.com' });
  });

  it('reads the README\'s example as documented', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Guardrails and the cost of a change'));
    const example = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const text = example.replace('    # source, cluster, namespaces as above\n', `    source: { local: { directory: ./repo, paths: ["**/*.yaml"] } }
    cluster: { kubeconfig: { path: ./kubeconfig } }
    namespaces: { allow: [db] }
`);
    const target = parseConfig(text, 'README.md', '/etc/sts').targets[0];
    assert.deepEqual(target?.guardrails, { maxSize: '4Ti', maxGrowthFactor: 4, maxMonthlyIncrease: 500 });
    assert.deepEqual(target?.prices, { currency: 'USD', perGiBMonth: { gp3: 0.08, io2: 0.125 } });
  });

  it('refuses a maxSize that is not a size, a cost limit without prices, and a growth factor below 1', () => {
    const problems = problemsOf(config(`    guardrails: { maxSize: 10 terabytes, maxGrowthFactor: 0.5, maxMonthlyIncrease: 100 }
    sizeSources:
${prometheusSource}
        guardrails: { maxSize: lots }
`));
    // Every mistake in one round (issue 37 item 12): the schema's, and those of the checks after it.
    assert.equal(problems.length, 4, problems.join('\n'));
    assert.equal(problems[0], 'target "prod": guardrails.maxGrowthFactor must be >= 1');
    assert.match(problems[1] ?? '', /^target "prod": guardrails\.maxSize "10 terabytes" is not a size/);
    const parsedProblems = problemsOf(config(`    guardrails: { maxSize: 10 terabytes, maxMonthlyIncrease: 100 }
    sizeSources:
${prometheusSource}
        guardrails: { maxSize: lots }
`));
    assert.equal(parsedProblems.length, 3);
    assert.match(parsedProblems[0] ?? '', /^target "prod": guardrails\.maxSize "10 terabytes" is not a size: invalid quantity/);
    assert.equal(parsedProblems[1], 'target "prod": guardrails.maxMonthlyIncrease needs prices (the price per GiB-month of each StorageClass) to count a change\'s cost');
    assert.match(parsedProblems[2] ?? '', /^target "prod": sizeSources\[0\]\.guardrails\.maxSize "lots" is not a size/);
  });

  it('refuses a maxSize below 1Mi as a unit left out, saying the size probably meant (issue 37 item 12)', () => {
    assert.deepEqual(problemsOf(config('    guardrails: { maxSize: 50 }\n')),
      ['target "prod": guardrails.maxSize 50 is 50 bytes; did you mean 50Gi? (no volume is that small: a size below 1Mi is refused)']);
    assert.deepEqual(parseConfig(config('    guardrails: { maxSize: 1Mi }\n'), 'test.yaml', '/etc/sts').targets[0]?.guardrails, { maxSize: '1Mi' });
  });

  it('says every mistake at once: the schema\'s beside the checks after it, in this target and the next (issue 37 item 12)', () => {
    const text = `${config('    guardrails: { maxSize: 50, maxGrowthFactr: 3 }\n')}  - name: other
    source:
      local: { directory: ./repo, paths: ["k8s/**/*.yaml"] }
    cluster:
      kubeconfig: { path: ./kubeconfig, contxt: x }
    namespaces: { allow: [sts-volume-gitops] }
`;
    assert.deepEqual(problemsOf(text), [
      'target "prod": guardrails has an unknown field "maxGrowthFactr"; did you mean "maxGrowthFactor"?',
      'target "other": cluster.kubeconfig has an unknown field "contxt"; did you mean "context"?',
      'target "prod": guardrails.maxSize 50 is 50 bytes; did you mean 50Gi? (no volume is that small: a size below 1Mi is refused)',
      ...problemsOf(text).slice(3),
    ]);
    assert.match(problemsOf(text)[3] ?? '', /^target "other": namespaces\.state "sts-volume-gitops" is also in namespaces\.allow/);
  });

  it('refuses two mappings of one set that disagree on its owner, and an unknown currency form', () => {
    assert.deepEqual(problemsOf(config(`    sizeSources:
${prometheusSource}
        ownedBy: { kind: Prometheus }
      - { file: apps/monitoring/values-prod.yaml, path: a.b, statefulSet: monitoring/prometheus-kube-prometheus-stack-prometheus, template: other }
`)), ['target "prod": sizeSources[1] and sizeSources[0] map monitoring/prometheus-kube-prometheus-stack-prometheus but disagree on ownedBy; declare the same owner on both (or on neither)']);
    assert.match(problemsOf(config('    prices: { currency: dollars, perGiBMonth: { gp3: 0.08 } }\n'))[0] ?? '', /^target "prod": prices\.currency "dollars" does not have the expected form/);
    assert.deepEqual(problemsOf(config('    prices: { perGiBMonth: { GP3: 0.08, io2: -1 } }\n')), [
      'target "prod": prices.perGiBMonth has the key "GP3", which is not a StorageClass name (lowercase letters, digits, "-" and ".")',
      'target "prod": prices.perGiBMonth.io2 must be >= 0',
    ]);
  });
});
