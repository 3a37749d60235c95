import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, parseConfig } from '../../functions/domain/config.ts';
import { configProblems as problemsOf } from '../support/config-text.ts';

const good = `
targets:
  - name: prod-eu
    source:
      github: { owner: acme, repo: platform-gitops, branch: main, paths: ["k8s/**/*.yaml"], token: { env: GH_TOKEN } }
    cluster:
      eks: { name: prod-eu, region: eu-west-1 }
    namespaces: { default: apps, allow: [db, cache] }
  - name: local
    source:
      local: { directory: ./repo, paths: ["**/*.yaml"] }
    cluster:
      kubeconfig: { path: ./kubeconfig, context: sandbox }
    namespaces: { allow: ["*"] }
    pullRequests: { validate: false }
`;

describe('parseConfig', () => {
  it('reads GitHub and local sources, EKS and kubeconfig clusters, with defaults filled in', () => {
    const config = parseConfig(good, 'test.yaml', '/etc/sts');
    const [prod, local] = config.targets;
    assert.deepEqual(prod, {
      name: 'prod-eu',
      source: { github: { owner: 'acme', repo: 'platform-gitops', branch: 'main', paths: ['k8s/**/*.yaml'], token: { env: 'GH_TOKEN' } } },
      cluster: { eks: { name: 'prod-eu', region: 'eu-west-1' } },
      sizeSources: [],
      namespaces: { default: 'apps', state: 'sts-volume-gitops', allow: ['db', 'cache'] },
      pullRequests: { validate: true, recovery: true, writeBack: true, forks: 'neutral' },
      stalledAfterSeconds: 3600,
    });
    assert.deepEqual(local?.source, { local: { directory: '/etc/sts/repo', paths: ['**/*.yaml'] } });
    assert.deepEqual(local?.cluster, { kubeconfig: { path: '/etc/sts/kubeconfig', context: 'sandbox' } });
    assert.deepEqual(local?.namespaces, { default: 'default', state: 'sts-volume-gitops', allow: ['*'] });
    assert.deepEqual(local?.pullRequests, { validate: false, recovery: true, writeBack: true, forks: 'neutral' });
  });

  it('takes pullRequests.writeBack from recovery when not set (as before it had its own switch), and on its own when set', () => {
    const writeBackOf = (pullRequests: string): boolean | undefined =>
      parseConfig(good.replace('pullRequests: { validate: false }', `pullRequests: ${pullRequests}`), 'test.yaml', '/etc/sts').targets[1]?.pullRequests.writeBack;
    assert.equal(writeBackOf('{ recovery: false }'), false);
    assert.equal(writeBackOf('{ recovery: false, writeBack: true }'), true);
    assert.equal(writeBackOf('{ recovery: true, writeBack: false }'), false);
  });

  // README's example writes `kubeconfig: { path: ~/.kube/config }`, as kubectl users do; YAML does not expand `~`, and
  // resolved against the config's folder it named /etc/sts/~/.kube/config.
  it('reads a path starting with ~/ from the home directory, as a shell would', () => {
    const text = good.replace('path: ./kubeconfig', 'path: ~/.kube/config').replace('directory: ./repo', 'directory: "~"');
    const [, local] = parseConfig(text, 'test.yaml', '/etc/sts').targets;
    assert.deepEqual(local?.cluster, { kubeconfig: { path: join(homedir(), '.kube/config'), context: 'sandbox' } });
    assert.deepEqual(local?.source, { local: { directory: homedir(), paths: ['**/*.yaml'] } });
    const literal = parseConfig(good.replace('path: ./kubeconfig', 'path: ./~x/config'), 'test.yaml', '/etc/sts').targets[1];
    assert.deepEqual(literal?.cluster, { kubeconfig: { path: '/etc/sts/~x/config', context: 'sandbox' } });
  });

  it('accepts the same configuration written as JSON', () => {
    const json = JSON.stringify({ targets: [{ name: 'a', source: { local: { directory: '/r', paths: ['*.yaml'] } }, cluster: { kubeconfig: { path: '/k' } }, namespaces: { allow: ['db'] } }] });
    assert.equal(parseConfig(json, 'c.json', '/').targets[0]?.name, 'a');
  });

  const errorCases: Array<[name: string, text: string, expected: RegExp]> = [
    ['a missing branch', good.replace('branch: main, ', ''), /^target "prod-eu": source\.github\.branch is required$/],
    ['an unknown field', good.replace('pullRequests: { validate: false }', 'pullRequest: { validate: false }'), /^target "local" has an unknown field "pullRequest"; did you mean "pullRequests"\?$/],
    ['a source with both kinds', good.replace('    cluster:\n      eks', '      local: { directory: x, paths: [a] }\n    cluster:\n      eks'), /^target "prod-eu": source must have exactly one of github or local$/],
    ['an empty allowlist', good.replace('allow: [db, cache]', 'allow: []'), /^target "prod-eu": namespaces\.allow must list at least 1 item$/],
    ['a bad target name', good.replace('name: prod-eu\n', 'name: Prod EU\n'), /^targets\[0\]\.name "Prod EU" does not have the expected form/],
    ['a replicas-like wrong type', good.replace('validate: false', 'validate: "no"'), /^target "local": pullRequests\.validate must be boolean, not string "no"$/],
    ['duplicate target names', good.replace('name: local', 'name: prod-eu'), /^targets\[1\]\.name "prod-eu" is used by another target/],
    ['a misspelt field deeper down', good.replace('context: sandbox', 'contxt: sandbox'), /^target "local": cluster\.kubeconfig has an unknown field "contxt"; did you mean "context"\?$/],
    ['no targets at all', 'targets: []', /^targets must list at least 1 item/],
    ['broken YAML', 'targets: [', /^not valid YAML or JSON at line 1, column 11: unexpected end of the stream within a flow collection$/],
  ];
  for (const [name, text, expected] of errorCases) {
    it(`explains ${name} in words a person can act on`, () => {
      const problems = problemsOf(text);
      assert.ok(problems.some((p) => expected.test(p)), `got: ${JSON.stringify(problems)}`);
    });
  }
});

describe('stalledAfter: how long a volume may wait for its node', () => {
  const withStall = (value: string): string => good.replace('    pullRequests: { validate: false }', `    pullRequests: { validate: false }\n    stalledAfter: ${value}`);

  it('reads a duration in days, hours, minutes and seconds (1h when not set)', () => {
    assert.equal(parseConfig(withStall('1h30m'), 't.yaml', '/').targets[1]?.stalledAfterSeconds, 5400);
    assert.equal(parseConfig(withStall('2d'), 't.yaml', '/').targets[1]?.stalledAfterSeconds, 172_800);
    assert.equal(parseConfig(withStall('45s'), 't.yaml', '/').targets[1]?.stalledAfterSeconds, 45);
    assert.equal(parseConfig(good, 't.yaml', '/').targets[1]?.stalledAfterSeconds, 3600);
  });

  it('reads the README\'s configuration example as documented', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const example = /```yaml\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Configuration')))?.[1] ?? '';
    assert.match(example, /stalledAfter: 1h/);
    assert.equal(parseConfig(example, 'README.md', '/etc/sts').targets[0]?.stalledAfterSeconds, 3600);
  });

  it('names the field and the form when it is not a duration, or no time at all', () => {
    assert.deepEqual(problemsOf(withStall('"90 minutes"')), ['target "local": stalledAfter "90 minutes" is not a duration such as 30m, 1h, 1h30m or 2d']);
    assert.deepEqual(problemsOf(withStall('1h30')), ['target "local": stalledAfter "1h30" is not a duration such as 30m, 1h, 1h30m or 2d']);
    assert.deepEqual(problemsOf(withStall('0m')), ['target "local": stalledAfter "0m" is no time at all; write a duration such as 30m, 1h or 1h30m']);
  });
});

describe('configuration errors never echo what may be a secret (issue 13 item 11)', () => {
  const token = 'ghp_R4nd0mT0k3nV4lu3Th4tL00ksR34l1234';
  const cases: Array<[name: string, text: string, expected: RegExp]> = [
    ['a file that is one string (a secret file passed by mistake)', `${token}\nsecond line of a key file\n`, /^\(top level\) must be object, not string \(.*not shown\)$/],
    ['a token pasted where the variable name belongs', good.replace('token: { env: GH_TOKEN }', `token: { env: ${token} }`), /^target "prod-eu": source\.github\.token\.env must name where the credential is kept, but its value looks like the credential itself \(not shown\)/],
    ['a private key pasted where the secret name belongs', good.replace('token: { env: GH_TOKEN }', 'app: { appId: 1, installationId: 2, privateKey: { env: "-----BEGIN RSA PRIVATE KEY-----" } }'), /privateKey\.env \(a value that looks like a credential, not shown\) does not have the expected form/],
    ['a YAML error on the line that holds a token', `targets:\n  - name: x\n    token: ${token}\n   bad: [`, /^not valid YAML or JSON at line \d+, column \d+: /],
  ];
  for (const [name, text, expected] of cases) {
    it(`explains ${name} without showing it`, () => {
      const problems = problemsOf(text);
      assert.ok(problems.some((p) => expected.test(p)), `got: ${JSON.stringify(problems)}`);
      assert.ok(problems.every((p) => !p.includes(token) && !p.includes('PRIVATE KEY') && !p.includes('second line')), `leaked: ${JSON.stringify(problems)}`);
    });
  }
});

describe('loadConfig', () => {
  it('reads the file named by STS_VOLUME_GITOPS_CONFIG when no path is given, resolving paths against its folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-config-'));
    const file = join(dir, 'config.yaml');
    await writeFile(file, good);
    const config = await loadConfig(undefined, { STS_VOLUME_GITOPS_CONFIG: file });
    assert.equal(config.targets.length, 2);
    const local = config.targets[1]?.source;
    assert.ok(local && 'local' in local);
    assert.equal(local.local.directory, join(dir, 'repo'));
  });

  it('says how to give a configuration when there is none', async () => {
    await assert.rejects(loadConfig(undefined, {}), (error: unknown) => error instanceof ConfigError
      && /pass --config FILE or set STS_VOLUME_GITOPS_CONFIG/.test(error.problems[0] ?? ''));
  });

  it('reports a file that cannot be read', async () => {
    await assert.rejects(loadConfig('/nonexistent/config.yaml', {}), /: cannot read \/nonexistent\/config\.yaml: no such file \(ENOENT\)$/, 'the file is named, and what is wrong with it (issue 30 item 9)');
  });
});
