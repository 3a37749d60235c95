// usage, growth and drivers in the configuration (issue 36): the schema, the defaults and the checks parseConfig adds.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseConfig } from '../../functions/domain/config.ts';
import { readGrowthStep } from '../../functions/domain/usage-config.ts';
import { configProblems as problemsOf, localTargetConfig } from '../support/config-text.ts';

const config = (extra: string): string => localTargetConfig(extra, ['db']);
const parsed = (extra: string) => parseConfig(config(extra), 'test.yaml', '/etc/sts').targets[0];

describe('usage, growth and drivers in the configuration', () => {
  it('reads a Prometheus with SigV4, growth with its defaults, and no driver settings', () => {
    const target = parsed(`    usage: { prometheus: { url: "https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-1", auth: { sigv4: { region: eu-west-1 } } } }
    growth: { max: 500Gi }
`);
    assert.deepEqual(target?.usage, { prometheus: { url: 'https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-1', auth: { sigv4: { region: 'eu-west-1' } } } });
    assert.deepEqual(target?.growth, { usedPercent: 80, step: { percent: 50 }, max: '500Gi', openAtOnce: 5 });
    assert.equal(target?.modificationLimits, undefined);
  });

  it('reads every growth field, a bearer token file against the config directory, and driver limits over the defaults, the older cooldown form too', () => {
    const target = parsed(`    usage: { prometheus: { url: "http://prometheus.monitoring:9090", auth: { bearer: { file: ./prom-token } } } }
    growth: { usedPercent: 85, fullWithin: 7d, step: 20Gi, max: 1Ti, openAtOnce: 2 }
    drivers: { pd.csi.storage.gke.io: { modificationCooldown: 4h }, ebs.csi.aws.com: { modificationCooldown: 0s }, disk.csi.azure.com: { modificationLimit: { count: 2, per: 1d } } }
`);
    assert.deepEqual(target?.usage?.prometheus.auth, { bearer: { file: '/etc/sts/prom-token' } });
    assert.deepEqual(target?.growth, { usedPercent: 85, fullWithinSeconds: 7 * 86_400, step: { size: '20Gi' }, max: '1Ti', openAtOnce: 2 });
    assert.deepEqual(target?.modificationLimits, {
      'ebs.csi.aws.com': { count: 1, perSeconds: 0 }, 'pd.csi.storage.gke.io': { count: 1, perSeconds: 4 * 3600 }, 'disk.csi.azure.com': { count: 2, perSeconds: 86_400 },
    });
  });

  it('refuses growth without a max, saying what max is', () => {
    assert.deepEqual(problemsOf(config(`    usage: { prometheus: { url: "http://prom:9090" } }
    growth: { usedPercent: 90 }
`)), ['target "prod": growth.max is required: the largest size growth may propose (a quantity such as 500Gi)']);
  });

  it('refuses growth without usage to read, a step under 1Gi, a max that is no size and a fullWithin of nothing', () => {
    assert.deepEqual(problemsOf(config('    growth: { step: 512Mi, max: lots, fullWithin: 0d }\n')), [
      'target "prod": growth needs usage.prometheus: growth is proposed from the usage read there',
      'target "prod": growth.step "512Mi" is less than 1Gi, the smallest step growth takes; write 1Gi or more, or a percentage',
      'target "prod": growth.max "lots" is not a size: invalid quantity "lots": expected a number followed by an optional suffix (Ki, Mi, Gi, ..., k, M, G, ..., or an exponent); write a quantity such as 500Gi',
      'target "prod": growth.fullWithin "0d" is no time at all; write a duration such as 7d or 36h',
    ]);
  });

  it('says what a step is when it is neither a percentage nor a size', () => {
    assert.deepEqual(readGrowthStep('0%', 'growth.step'), 'growth.step "0%" adds nothing; write a percentage above 0 (50%) or a size of at least 1Gi');
    const half = readGrowthStep('half', 'growth.step');
    assert.match(typeof half === 'string' ? half : '', /^growth\.step "half" is neither a percentage \(50%\) nor a size \(20Gi\): invalid quantity/);
    assert.deepEqual(readGrowthStep('12.5%', 'growth.step'), { percent: 12.5 });
    assert.deepEqual(readGrowthStep('1Gi', 'growth.step'), { size: '1Gi' });
  });

  it('refuses a URL carrying a password without showing it, and a bearer reference that is the token itself', () => {
    const problems = problemsOf(config(`    usage: { prometheus: { url: "https://admin:hunter2@prom.example.com", auth: { bearer: { env: glpat1234567890ABCDEFabcdef } } } }
`));
    assert.deepEqual(problems, [
      'target "prod": usage.prometheus.url carries a user or password (not shown); take it out of the URL and use auth.bearer (or sigv4)',
      'target "prod": usage.prometheus.auth.bearer.env must name where the token is kept, but its value looks like the token itself (not shown); move it to an environment variable or secret and name that',
    ]);
    assert.ok(!problems.join('\n').includes('hunter2'));
  });

  it('says which auth it expects, did you mean for a misspelt field, and refuses a URL with a query', () => {
    assert.deepEqual(problemsOf(config(`    usage: { prometheus: { url: "http://prom:9090/?x=1", auth: { basic: { user: a } } } }
    growth: { usedPercentage: 90, max: 100Gi }
`)), [
      'target "prod": usage.prometheus.url "http://prom:9090/?x=1" is not an http(s) URL without query or fragment, such as http://prometheus.monitoring:9090',
      'target "prod": usage.prometheus.auth has an unknown field "basic" (expected sigv4 or bearer)',
      'target "prod": growth has an unknown field "usedPercentage"; did you mean "usedPercent"?',
    ]);
  });

  it('refuses a usedPercent above 100, a cooldown or window that is no duration, and a driver key that is no driver name', () => {
    assert.deepEqual(problemsOf(config(`    usage: { prometheus: { url: "http://prom:9090" } }
    growth: { usedPercent: 120, max: 100Gi }
    drivers: { "EBS": { modificationCooldown: 6h }, ebs.csi.aws.com: { modificationCooldown: six hours }, pd.csi.storage.gke.io: { modificationLimit: { count: 4, per: a day } } }
`)), [
      'target "prod": growth.usedPercent must be <= 100',
      'target "prod": drivers has the key "EBS", which is not a CSI driver name (lowercase letters, digits, "-" and ".")',
      'target "prod": drivers.ebs.csi.aws.com.modificationCooldown "six hours" is not a duration such as 30m, 6h or 7d',
      'target "prod": drivers.pd.csi.storage.gke.io.modificationLimit.per "a day" is not a duration such as 30m, 6h or 7d',
    ]);
  });

  it('refuses a limit of no modifications, one without its window, and both forms at once', () => {
    assert.deepEqual(problemsOf(config(`    drivers: { ebs.csi.aws.com: { modificationLimit: { count: 0, per: 24h } }, pd.csi.storage.gke.io: { modificationLimit: { count: 4 } } }
`)), [
      'target "prod": drivers.ebs.csi.aws.com.modificationLimit.count must be >= 1',
      'target "prod": drivers.pd.csi.storage.gke.io.modificationLimit.per is required',
    ]);
    assert.deepEqual(problemsOf(config(`    drivers: { ebs.csi.aws.com: { modificationLimit: { count: 4, per: 24h }, modificationCooldown: 6h } }
`)), [
      'target "prod": drivers.ebs.csi.aws.com sets both modificationLimit and modificationCooldown; keep modificationLimit (modificationCooldown: 6h is the older way to write modificationLimit: { count: 1, per: 6h })',
    ]);
  });

  it('reads the README\'s example as documented', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const example = /```yaml\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Usage and growth')))?.[1] ?? '';
    const text = example.replace('    # source, cluster, namespaces as above\n', `    source: { local: { directory: ./repo, paths: ["**/*.yaml"] } }
    cluster: { kubeconfig: { path: ./kubeconfig } }
    namespaces: { allow: [db] }
`);
    const target = parseConfig(text, 'README.md', '/etc/sts').targets[0];
    assert.deepEqual(target?.usage, { prometheus: { url: 'https://prometheus.example.internal', auth: { sigv4: { region: 'eu-west-1' } } } });
    assert.deepEqual(target?.growth, { usedPercent: 80, fullWithinSeconds: 7 * 86_400, step: { percent: 50 }, max: '500Gi', openAtOnce: 5 });
    assert.deepEqual(target?.modificationLimits, { 'ebs.csi.aws.com': { count: 4, perSeconds: 86_400 } });
  });
});
