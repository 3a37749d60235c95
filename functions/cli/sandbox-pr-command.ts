// `npx sts-volume-gitops sandbox pr open|merge|close|reopen|rerun`: the GitHub sandbox's pull requests, driven as a
// person on github.com would (through its REST API, with Octokit, as that person's token), so that a change goes
// from a pushed branch to a merge, with the sandbox's webhook deliveries on the way. The same calls work with curl
// (README shows them).
import { createGitHubClient, type GitHubClient } from '../adapters/github/octokit.ts';
import { isSandboxPullRequestAction, sandboxPullRequestTable, type SandboxPullRequestAction } from './command-table.ts';
import { readCommandLine, runAs } from './command-line.ts';
import { printCliError } from './usage-errors.ts';
import { jsonText, writeOut } from './terminal.ts';
import { printable } from '../domain/printable.ts';

/** Where a running GitHub sandbox is, as `sandbox` prints it. */
export const sandboxUrlVariable = 'STS_SANDBOX_GITHUB_URL';
export const sandboxTokenVariable = 'STS_SANDBOX_GITHUB_TOKEN';
export const sandboxRepositoryVariable = 'STS_SANDBOX_GITHUB_REPOSITORY';
/** The repository `sandbox` serves (examples/gitops-repo). */
export const sandboxRepository = 'acme/platform-gitops';

/** This tool's pull request checks are named `sts-volume-gitops/validate (<target>)`. */
const validateCheckPrefix = 'sts-volume-gitops/validate (';

// A type, not an interface: Octokit's parameters take it as a record.
type Repository = { owner: string; repo: string };

type Print = (text: string) => void;

export async function sandboxPullRequestCommand(args: readonly string[], env: NodeJS.ProcessEnv = process.env, print: Print = writeOut): Promise<number> {
  const [action, ...rest] = args;
  const json = rest.includes('--json');
  if (!isSandboxPullRequestAction(action)) {
    printCliError({
      kind: 'usage', message: `sandbox pr takes ${Object.keys(sandboxPullRequestTable).join(', ')}${action === undefined ? '' : `, not ${JSON.stringify(action)}`}`,
      hint: `Run '${runAs} sandbox pr ACTION --help' for an action's usage and flags.`,
    }, json, print);
    return 2;
  }
  const line = readCommandLine(sandboxPullRequestTable[action], rest, print);
  if (typeof line === 'number') return line;
  const baseUrl = env[sandboxUrlVariable];
  const token = env[sandboxTokenVariable];
  if (!baseUrl || !token) {
    printCliError({ kind: 'usage', message: `${!baseUrl ? sandboxUrlVariable : sandboxTokenVariable} is not set: export both as \`${runAs} sandbox\` prints them (Try:)` }, json, print);
    return 2;
  }
  const number = line.positional === undefined ? undefined : Number(line.positional);
  if (line.positional !== undefined && (number === undefined || !Number.isSafeInteger(number) || number < 1)) {
    printCliError({ kind: 'usage', message: `NUMBER must be a pull request's number, not ${JSON.stringify(line.positional)}` }, json, print);
    return 2;
  }
  const repository = repositoryOf(env);
  if (repository === undefined) {
    printCliError({ kind: 'usage', message: `${sandboxRepositoryVariable} must be OWNER/NAME, not ${JSON.stringify(env[sandboxRepositoryVariable])}` }, json, print);
    return 2;
  }
  const { method } = line.values as Values;
  if (method !== undefined && method !== 'merge' && method !== 'squash') {
    printCliError({ kind: 'usage', message: `--method must be merge or squash, not ${JSON.stringify(method)}` }, json, print);
    return 2;
  }
  const octokit = createGitHubClient({ baseUrl, auth: { kind: 'token', token } });
  try {
    const result = await runAction(octokit, repository, action, line.values as Values, number ?? 0);
    print(json ? jsonText(result.json) : `${result.text}\n`);
    return result.code;
  } catch (error) {
    const { status, message } = error as { status?: number; message?: string };
    printCliError({ kind: 'failure', message: `the GitHub sandbox at ${baseUrl} refused: ${status === undefined ? '' : `${status} `}${message ?? String(error)}` }, json, print);
    return 1;
  }
}

/** The repository the sandbox serves: `$STS_SANDBOX_GITHUB_REPOSITORY`, else the one `sandbox` makes. */
function repositoryOf(env: NodeJS.ProcessEnv): Repository | undefined {
  const [owner, repo, ...rest] = (env[sandboxRepositoryVariable] ?? sandboxRepository).split('/');
  return owner && repo && rest.length === 0 ? { owner, repo } : undefined;
}

/** The string flags of any `sandbox pr` action. */
type Values = { head?: string; title?: string; base?: string; body?: string; method?: string; check?: string };

async function runAction(octokit: GitHubClient, repository: Repository, action: SandboxPullRequestAction, values: Values, number: number): Promise<{ code: number; text: string; json: unknown }> {
  switch (action) {
    case 'open': {
      const base = values.base ?? (await octokit.rest.repos.get(repository)).data.default_branch;
      const { data } = await octokit.rest.pulls.create({ ...repository, head: values.head ?? '', base, title: values.title ?? '', ...(values.body !== undefined ? { body: values.body } : {}) });
      return { code: 0, text: `opened pull request #${data.number} (${data.head.ref} -> ${data.base.ref}, head ${data.head.sha.slice(0, 7)}): ${printable(data.title)}`, json: { number: data.number, head: data.head.ref, base: data.base.ref, headSha: data.head.sha } };
    }
    case 'merge': {
      const { data } = await octokit.rest.pulls.merge({ ...repository, pull_number: number, merge_method: values.method === 'squash' ? 'squash' : 'merge' });
      return { code: 0, text: `merged pull request #${number}: ${data.sha.slice(0, 7)}`, json: { number, merged: data.merged, sha: data.sha } };
    }
    case 'close':
    case 'reopen': {
      const { data } = await octokit.rest.pulls.update({ ...repository, pull_number: number, state: action === 'close' ? 'closed' : 'open' });
      return { code: 0, text: `${action === 'close' ? 'closed' : 'reopened'} pull request #${number}`, json: { number, state: data.state } };
    }
    case 'rerun':
      return rerun(octokit, repository, number, values.check);
  }
}

/** Re-run, as the button does, on this tool's check runs of the pull request's head. */
async function rerun(octokit: GitHubClient, repository: Repository, number: number, name: string | undefined): Promise<{ code: number; text: string; json: unknown }> {
  const pull = (await octokit.rest.pulls.get({ ...repository, pull_number: number })).data;
  const runs = (await octokit.rest.checks.listForRef({ ...repository, ref: pull.head.sha, filter: 'latest', per_page: 100 })).data.check_runs
    .filter((run) => (name === undefined ? run.name.startsWith(validateCheckPrefix) : run.name === name));
  if (runs.length === 0) {
    return {
      code: 1, json: { number, headSha: pull.head.sha, rerequested: [] },
      text: `no ${name ?? `${validateCheckPrefix}...)`} check run on #${number}'s head ${pull.head.sha.slice(0, 7)} to re-run (a token's verdicts are commit statuses, which have no Re-run)`,
    };
  }
  for (const run of runs) await octokit.rest.checks.rerequestRun({ ...repository, check_run_id: run.id });
  return {
    code: 0, json: { number, headSha: pull.head.sha, rerequested: runs.map((run) => ({ id: run.id, name: run.name })) },
    text: runs.map((run) => `asked for ${run.name} on ${pull.head.sha.slice(0, 7)} again (check run ${run.id}); the sandbox delivers check_run rerequested`).join('\n'),
  };
}
