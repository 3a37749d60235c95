// The CLI as a person or a script meets it, run as a child process: each command's --help (and `help COMMAND`)
// prints its usage and every flag and does nothing else; --version; --json prints JSON on stdout whatever goes wrong;
// usage errors exit 2; the bin says which Node it needs instead of crashing on an older one.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { commandTable } from '../../functions/cli/command-table.ts';
import { allCommandSpecs, renderCommandHelp } from '../../functions/cli/command-line.ts';
import { nodeVersionProblem } from '../../bin/node-version.js';
import packageJson from '../../package.json' with { type: 'json' };

const run = promisify(execFile);

interface Answer {
  code: number;
  stdout: string;
  stderr: string;
}

/** The CLI in a child, with its own temporary directory and no configuration in the environment. */
async function spawnCli(args: readonly string[], options: { tmp: string; node?: string; entry?: 'bin' | 'main' }): Promise<Answer> {
  const entry = options.entry === 'bin' ? ['bin/sts-volume-gitops.js'] : ['--import', 'tsx', 'functions/cli/main.ts'];
  const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: options.tmp };
  delete env.STS_VOLUME_GITOPS_CONFIG;
  try {
    const { stdout, stderr } = await run(options.node ?? process.execPath, [...entry, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** What the commands left in the temporary directory (tsx keeps its cache there; that is not ours). */
async function leftBehind(tmp: string): Promise<string[]> {
  return (await readdir(tmp)).filter((name) => name.startsWith('sts-volume-gitops'));
}

/** A `node` on PATH other than the one running the tests that is too old for the CLI (the system's, here). */
async function olderNode(): Promise<{ path: string; version: string } | undefined> {
  const current = realpathSync(process.execPath);
  const candidates = [...(process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== '' && !dir.includes('node_modules')).map((dir) => join(dir, 'node')), '/usr/local/bin/node', '/usr/bin/node'];
  for (const candidate of new Set(candidates)) {
    if (!existsSync(candidate) || realpathSync(candidate) === current) continue;
    const version = (await run(candidate, ['-p', 'process.versions.node']).catch(() => ({ stdout: '' }))).stdout.trim();
    if (version !== '' && nodeVersionProblem(version) !== undefined) return { path: candidate, version };
  }
  return undefined;
}

describe('the command line, as a child process', () => {
  let tmp: string;
  before(async () => {
    tmp = await mkdtemp(join(tmpdir(), 'cli-usage-'));
  });
  after(() => rm(tmp, { recursive: true, force: true }));

  it('COMMAND --help prints that command\'s usage and every flag, exits 0 and does nothing else', async () => {
    const answers = await Promise.all(allCommandSpecs().map(async (spec) => ({ spec, answer: await spawnCli([...spec.name.split(' '), '--help'], { tmp }) })));
    for (const { spec, answer } of answers) {
      assert.deepEqual(answer, { code: 0, stdout: renderCommandHelp(spec), stderr: '' }, `${spec.name} --help`);
    }
    assert.match(answers.find((a) => a.spec.name === 'check')?.answer.stdout ?? '', /--webhook-secret-env VAR/);
    assert.match(answers.find((a) => a.spec.name === 'rbac')?.answer.stdout ?? '', /--service-account NAMESPACE:NAME/);
    // `demo --help` used to run the whole demo, in a temporary folder of its own.
    assert.deepEqual(await leftBehind(tmp), []);
    assert.deepEqual(await spawnCli(['help', 'sandbox'], { tmp }), { code: 0, stdout: renderCommandHelp(commandTable.sandbox), stderr: '' });
  });

  it('--version and version print the package\'s version', async () => {
    const [flag, command, json] = await Promise.all([spawnCli(['--version'], { tmp }), spawnCli(['version'], { tmp }), spawnCli(['version', '--json'], { tmp })]);
    assert.equal(flag.code, 0);
    assert.equal(flag.stdout, `sts-volume-gitops ${packageJson.version} (Node.js ${process.versions.node})\n`);
    assert.deepEqual(command, flag);
    assert.deepEqual(JSON.parse(json.stdout), { version: packageJson.version, node: process.versions.node });
  });

  it('--json prints JSON on stdout when the command line or the configuration is wrong, and exits 2', async () => {
    const badConfig = join(tmp, 'bad.yaml');
    await writeFile(badConfig, 'targets: []\n');
    const [noConfig, checkBad, checkFlag, reconcileBad, sandboxBad] = await Promise.all([
      spawnCli(['plan', '--json'], { tmp }),
      spawnCli(['check', '--json', '--config', badConfig], { tmp }),
      spawnCli(['check', '--json', '--bogus'], { tmp }),
      spawnCli(['reconcile', '--config', badConfig, '--json'], { tmp }),
      spawnCli(['sandbox', 'nope', '--json'], { tmp }),
    ]);
    for (const answer of [noConfig, checkBad, checkFlag, reconcileBad, sandboxBad]) assert.equal(answer.code, 2, answer.stderr);
    assert.deepEqual(JSON.parse(noConfig.stdout), { error: { kind: 'configuration', message: 'invalid configuration (none): no configuration file given: pass --config FILE or set STS_VOLUME_GITOPS_CONFIG', problems: ['no configuration file given: pass --config FILE or set STS_VOLUME_GITOPS_CONFIG'] } });
    const checked = JSON.parse(checkBad.stdout) as { targets: unknown[]; counts: Record<string, number>; error: { kind: string; problems: string[] } };
    assert.deepEqual(checked.targets, []);
    assert.deepEqual(checked.counts, { error: checked.error.problems.length, warning: 0, ok: 0 });
    assert.equal(checked.error.kind, 'configuration');
    assert.ok(checked.error.problems.length > 0);
    assert.match(checkBad.stderr, /^configuration error in .*bad\.yaml:\n {2}- /, 'a person still reads the problems on stderr');
    assert.deepEqual(JSON.parse(checkFlag.stdout), { error: { kind: 'usage', message: 'Unknown option \'--bogus\'', hint: 'Run \'npx sts-volume-gitops check --help\' for its usage and flags.' } });
    assert.equal((JSON.parse(reconcileBad.stdout) as { error: { kind: string } }).error.kind, 'configuration');
    assert.equal((JSON.parse(sandboxBad.stdout) as { error: { kind: string } }).error.kind, 'usage');
  });

  it('bad usage exits 2 and says where the usage is', async () => {
    const [nothing, unknown, webhook, plan] = await Promise.all([
      spawnCli([], { tmp }), spawnCli(['frobnicate'], { tmp }), spawnCli(['webhook'], { tmp }), spawnCli(['plan', '--bogus'], { tmp }),
    ]);
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /^Usage:\n {2}npx sts-volume-gitops COMMAND \[flags\]$/m);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate": the commands are plan, reconcile, check, rbac, webhook, sandbox, demo, help, version\nRun 'npx sts-volume-gitops --help'/);
    assert.deepEqual([webhook.code, webhook.stderr], [2, 'webhook needs --port N\nRun \'npx sts-volume-gitops webhook --help\' for its usage and flags.\n']);
    assert.deepEqual([plan.code, plan.stdout], [2, '']);
  });

  it('says the command or flag probably meant, and takes a flag given before its command (issue 37 item 13)', async () => {
    const [command, flag, early, alone] = await Promise.all([
      spawnCli(['plna'], { tmp }), spawnCli(['check', '--confg', 'x.yaml'], { tmp }), spawnCli(['--verbose', 'plan', '--help'], { tmp }), spawnCli(['--verbose'], { tmp }),
    ]);
    assert.equal(command.code, 2);
    assert.match(command.stderr, /^unknown command "plna": did you mean plan\? The commands are plan, reconcile/);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /^Unknown option '--confg'; did you mean --config\?\nRun 'npx sts-volume-gitops check --help'/);
    assert.deepEqual([early.code, early.stderr], [0, ''], 'the flag goes after the command it precedes');
    assert.match(early.stdout, /^Usage:\n {2}npx sts-volume-gitops plan/);
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /^--verbose is a flag, not a command: it goes after the command \(sts-volume-gitops plan --verbose, or sts-volume-gitops reconcile --verbose, or sts-volume-gitops check --verbose\)/);
  });

  it('the bin runs the CLI on this Node', async () => {
    const answer = await spawnCli(['--version'], { tmp, entry: 'bin' });
    assert.equal(answer.stdout, `sts-volume-gitops ${packageJson.version} (Node.js ${process.versions.node})\n`);
  });

  it('the bin on a Node older than 22.19 says which Node it needs instead of crashing', async (t) => {
    const old = await olderNode();
    if (old === undefined) {
      t.skip('no Node older than 22.19 on this machine');
      return;
    }
    const answer = await spawnCli(['plan', '--help'], { tmp, node: old.path, entry: 'bin' });
    assert.equal(answer.code, 2);
    assert.equal(answer.stdout, '');
    assert.equal(answer.stderr, `${nodeVersionProblem(old.version, old.path) ?? ''}\n`);
    assert.doesNotMatch(answer.stderr, /TypeError|undici/);
  });
});
