// The command table read by parseArgs and printed as help (pure), and the bin's Node version check.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commandTable, sandboxPullRequestTable, type CommandSpec } from '../../functions/cli/command-table.ts';
import { allCommandSpecs, parseCommandLine, renderCommandHelp, renderOverview, synopsis, wantsJson } from '../../functions/cli/command-line.ts';
import { minimumNodeVersion, nodeVersionProblem } from '../../bin/node-version.js';
import packageJson from '../../package.json' with { type: 'json' };

const specs: CommandSpec[] = allCommandSpecs();

describe('the command table', () => {
  it('every flag a command parses is in its help and usage line, with its value placeholder', () => {
    for (const spec of specs) {
      const help = renderCommandHelp(spec);
      assert.ok(help.startsWith(`Usage:\n  ${synopsis(spec)}\n`), spec.name);
      for (const [name, flag] of Object.entries(spec.flags)) {
        const shown = flag.value === undefined ? `--${name}` : `--${name} ${flag.value}`;
        assert.ok(help.includes(`\n  ${shown} `), `${spec.name} --help lists ${shown}`);
        // An old name kept for a while is read and in the help, but no usage line offers it.
        if (flag.deprecatedFor !== undefined) assert.ok(!synopsis(spec).includes(`--${name} `), `${spec.name}'s usage line leaves out ${shown}`);
        else assert.ok(synopsis(spec).includes(flag.required ? ` ${shown}` : `[${shown}]`), `${spec.name}'s usage line shows ${shown}`);
      }
      assert.match(help, /\n {2}-h, --help +show this help\n/);
    }
  });

  it('names the flags users asked for, which the old help left out', () => {
    assert.match(renderCommandHelp(commandTable.check), /--webhook-secret-env VAR/);
    assert.match(renderCommandHelp(commandTable.rbac), /--group GROUP[\s\S]*--user USER[\s\S]*--service-account NAMESPACE:NAME/);
    assert.equal(synopsis(commandTable.rbac), 'npx sts-volume-gitops rbac [--config FILE] [--target NAME] [--group GROUP]... [--user USER]... [--service-account NAMESPACE:NAME]...');
    assert.equal(synopsis(commandTable.webhook), 'npx sts-volume-gitops webhook --port N [--config FILE] [--webhook-secret-env VAR]');
  });

  it('the overview lists every command with its summary', () => {
    const overview = renderOverview('9.9.9');
    assert.match(overview, /^sts-volume-gitops 9\.9\.9: /);
    for (const spec of Object.values(commandTable)) assert.match(overview, new RegExp(`\\n {2}${spec.name} +${spec.summary.replace(/[()]/g, '\\$&')}\\n`));
  });
});

describe('reading a command line', () => {
  it('gives typed values, repeated flags collected', () => {
    const line = parseCommandLine(commandTable.rbac, ['--config', 'c.yaml', '--group', 'a', '--group', 'b', '--service-account', 'ns:sa']);
    assert.deepEqual(line, { kind: 'run', values: { config: 'c.yaml', group: ['a', 'b'], 'service-account': ['ns:sa'] }, positional: undefined });
  });

  it('--help or -h wins, even over a flag it does not know', () => {
    assert.deepEqual(parseCommandLine(commandTable.plan, ['--bogus', '--help']), { kind: 'help' });
    assert.deepEqual(parseCommandLine(commandTable.plan, ['--config', 'c.yaml', '-h', '--bogus']), { kind: 'help' });
    assert.deepEqual(parseCommandLine(commandTable.demo, ['-h']), { kind: 'help' });
  });

  it('refuses an unknown flag, a missing value, a stray argument and a missing required flag, saying which', () => {
    assert.deepEqual(parseCommandLine(commandTable.plan, ['--bogus']), { kind: 'usage-error', message: 'Unknown option \'--bogus\'', json: false });
    assert.deepEqual(parseCommandLine(commandTable.check, ['--json', '--config']), { kind: 'usage-error', message: 'Option \'--config <value>\' argument missing', json: true });
    assert.equal(parseCommandLine(commandTable.demo, ['now']).kind, 'usage-error');
    assert.deepEqual(parseCommandLine(commandTable.sandbox, ['nope']), { kind: 'usage-error', message: 'SANDBOX must be kube or github, not "nope"', json: false });
    assert.deepEqual(parseCommandLine(commandTable.sandbox, ['kube', 'github', '--json']), { kind: 'usage-error', message: 'sandbox takes one SANDBOX, got kube github', json: true });
    assert.deepEqual(parseCommandLine(commandTable.webhook, ['--config', 'c.yaml']), { kind: 'usage-error', message: 'webhook needs --port N', json: false });
    assert.deepEqual(parseCommandLine(commandTable.sandbox, ['kube', '--port', '0']), { kind: 'run', values: { port: '0' }, positional: 'kube' });
  });

  it('knows --json was asked for only where the command has it', () => {
    assert.equal(wantsJson(commandTable.plan, ['--bogus', '--json']), true);
    assert.equal(wantsJson(commandTable.rbac, ['--json']), false);
  });
});

describe('subcommands', () => {
  it('sandbox pr ACTION takes its pull request\'s number, and says so when it is missing', () => {
    assert.deepEqual(parseCommandLine(sandboxPullRequestTable.merge, ['4', '--method', 'squash']), { kind: 'run', values: { method: 'squash' }, positional: '4' });
    assert.deepEqual(parseCommandLine(sandboxPullRequestTable.merge, []), { kind: 'usage-error', message: 'sandbox pr merge needs NUMBER', json: false });
    assert.deepEqual(parseCommandLine(sandboxPullRequestTable.open, ['--head', 'grow']), { kind: 'usage-error', message: 'sandbox pr open needs --title TEXT', json: false });
    assert.equal(synopsis(sandboxPullRequestTable.rerun), 'npx sts-volume-gitops sandbox pr rerun NUMBER [--check NAME] [--json]');
  });
});

describe('the Node version the bin needs', () => {
  it('refuses an older Node with what to do, and accepts 22.19 and later', () => {
    const problem = nodeVersionProblem('20.20.2', '/usr/bin/node') ?? '';
    assert.match(problem, /^sts-volume-gitops needs Node\.js 22\.19\.0 or later .*; this is Node\.js 20\.20\.2 \(\/usr\/bin\/node\)\./);
    assert.match(problem, /npm run cli -- COMMAND/);
    assert.notEqual(nodeVersionProblem('22.18.9'), undefined);
    assert.notEqual(nodeVersionProblem('v18.0.0'), undefined);
    assert.equal(nodeVersionProblem('22.19.0'), undefined);
    assert.equal(nodeVersionProblem('22.23.3'), undefined);
    assert.equal(nodeVersionProblem('24.0.0'), undefined);
    assert.equal(nodeVersionProblem('23.0.0'), undefined);
  });

  it('is the version package.json asks of npm', () => {
    assert.equal(packageJson.engines.node, `>=${minimumNodeVersion}`);
  });
});
