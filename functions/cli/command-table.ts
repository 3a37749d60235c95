// Every command of the `sts-volume-gitops` CLI, its flags and what they do: the one table that both parses the command
// line (node:util parseArgs) and prints the help, so a flag cannot be accepted without being documented.
import { configEnvironmentVariable } from '../domain/config.ts';
import { markerLegendLine } from './plan-markers.ts';

export interface FlagSpec {
  type: 'string' | 'boolean';
  /** May be given more than once (the values are collected). */
  multiple?: boolean;
  /** The value's placeholder in the usage line: FILE, NAME, N. */
  value?: string;
  /** Shown without brackets in the usage line (the command refuses to run without it). */
  required?: boolean;
  /** An old name still read, left out of the usage line; the help names the flag to use instead. */
  deprecatedFor?: string;
  description: string;
}

export interface CommandSpec {
  name: string;
  /** One line, for the list of commands. */
  summary: string;
  /** What the command does, in a few sentences, for its own help. */
  description: string;
  /** Lines printed after the flags in the command's help (a legend). */
  notes?: readonly string[];
  /** One positional argument the command may take (a subcommand), with the values it may have when they are fixed. */
  positional?: { name: string; values?: readonly string[]; description: string; required?: boolean };
  flags: Readonly<Record<string, FlagSpec>>;
}

const config = { type: 'string', value: 'FILE', description: `the configuration file (default: $${configEnvironmentVariable})` } as const;
const target = { type: 'string', value: 'NAME', description: 'only this target (default: every target in the configuration)' } as const;
const json = { type: 'boolean', description: 'print the result as JSON on stdout, errors included' } as const;
const verbose = { type: 'boolean', description: 'every line whole (on a terminal, long messages are cut to their first clause and wrapped)' } as const;
const quiet = { type: 'boolean', description: 'print only what went wrong: errors, blocked and failed (nothing when all is well; the exit code says it)' } as const;

export const commandTable = {
  plan: {
    name: 'plan',
    summary: 'show what a pass would do (read-only, like terraform plan)',
    description: 'Reads Git and the cluster, plans every volumeClaimTemplates change and checks it with server-side dry runs. Writes nothing.',
    flags: {
      config, target, json, verbose, quiet,
      'detailed-exitcode': { type: 'boolean', description: 'exit codes as terraform plan -detailed-exitcode: 0 no changes, 1 error (blocked, failed, stalled, bad usage or configuration), 2 changes present' },
    },
    notes: [markerLegendLine()],
  },
  reconcile: {
    name: 'reconcile',
    summary: 'run one pass: resize what Git asks for',
    description: 'One pass, as the scheduled function runs it: plan, then update templates and patch PVCs, then report. Progress lines go to stderr.',
    flags: { config, target, json, verbose, quiet },
    notes: [markerLegendLine()],
  },
  check: {
    name: 'check',
    summary: 'what is missing before a first pass (read-only)',
    description: 'Checks the configuration, the GitHub credential and its permissions, the paths, the cluster\'s permissions, the state namespace and the StorageClasses, each with its fix. Writes nothing. Exit code 1 when a check found an error (warnings allowed).',
    flags: {
      config, target, json, verbose, quiet,
      'webhook-secret-env': { type: 'string', value: 'VAR', description: 'check the local webhook secret in this environment variable (the deployed one is named by $STS_VOLUME_GITOPS_WEBHOOK_SECRET)' },
    },
  },
  rbac: {
    name: 'rbac',
    summary: 'print the RBAC manifest the configuration needs',
    description: 'Prints the Roles, ClusterRole and bindings that grant exactly what the tool needs for the configuration, ready for `kubectl apply -f -`. Bound to the group sts-volume-gitops unless subjects are given.',
    flags: {
      config, target,
      group: { type: 'string', multiple: true, value: 'GROUP', description: 'bind this Kubernetes group (with no subject flag: the group sts-volume-gitops)' },
      user: { type: 'string', multiple: true, value: 'USER', description: 'bind this Kubernetes user' },
      'service-account': { type: 'string', multiple: true, value: 'NAMESPACE:NAME', description: 'bind this ServiceAccount' },
    },
  },
  webhook: {
    name: 'webhook',
    summary: 'GitHub webhooks for local development',
    description: 'Listens for GitHub webhook deliveries: pull requests and merge queue commits are validated (no cluster write), checks re-run, and pushes to a target\'s branch reconciled, in this process, one at a time; each run is logged with its verdict. On an EKS target, validations use this machine\'s AWS credentials and pushes are refused (422): applying there is the deployed function\'s. Runs until Ctrl-C.',
    flags: {
      port: { type: 'string', value: 'N', required: true, description: 'the port to listen on (0 for any free one)' },
      config,
      'webhook-secret-env': { type: 'string', value: 'VAR', description: 'the environment variable holding the webhook secret GitHub signs with, 16 characters or more (default: GITHUB_WEBHOOK_SECRET); check takes the same flag' },
      'secret-env': { type: 'string', value: 'VAR', deprecatedFor: 'webhook-secret-env', description: 'still read, for scripts that pass it' },
    },
  },
  sandbox: {
    name: 'sandbox',
    summary: 'start the Kubernetes and GitHub sandboxes, seeded from examples/',
    description: 'Starts both sandboxes and prints how to reach them (the Kubernetes one with a Prometheus API over its volumes\' usage) and a ready configuration (the tool runs as a user granted only what `rbac` generates, and as the GitHub sandbox\'s App; it reads usage there), or one sandbox alone. The repository is a git remote (its URL is printed: clone, push); `sandbox pr open|merge|close|reopen|rerun` drive its pull requests, and with --webhook it delivers pushes, pull requests and check re-runs, signed, as GitHub does. Runs until Ctrl-C.',
    positional: { name: 'SANDBOX', values: ['kube', 'github'], description: 'start only the Kubernetes or only the GitHub sandbox' },
    flags: {
      webhook: { type: 'string', value: 'URL', description: 'deliver the GitHub sandbox\'s webhooks (push, pull_request, check_run) to this URL, e.g. a `webhook --port 8080` at http://127.0.0.1:8080/' },
      'webhook-secret-env': { type: 'string', value: 'VAR', description: 'sign deliveries with the secret in this variable (default: GITHUB_WEBHOOK_SECRET; generated and printed when it is unset)' },
      seed: { type: 'string', value: 'PATH', description: 'what to seed from: a folder with cluster-seed.yaml, gitops-repo/ and optionally sandbox-target.yaml (size sources and prices for the ready config) (both), a cluster seed file (kube), a repository folder (github); default: examples/' },
      port: { type: 'string', value: 'N', description: 'the port of a sandbox started alone (default: any free one)' },
      version: { type: 'string', value: 'V', description: 'the Kubernetes version the sandbox plays: 1.34 (v1.34.9, the default) or 1.26 (v1.26.5)' },
      'tick-ms': { type: 'string', value: 'MS', description: 'how often the simulated controllers advance, in milliseconds (default: 1000)' },
      json: { type: 'boolean', description: 'print how to reach the sandboxes as JSON on stdout, errors included' },
    },
  },
  demo: {
    name: 'demo',
    summary: 'the whole story on the sandboxes (npm start)',
    description: 'Runs check, plan and passes on the sandboxes seeded from examples/ and prints what happens: a shrink blocked on its pull request, resizes, a failed expansion and its recovery pull request, a reviewer\'s pull request, a guardrail holding a typo back, a values-file size. Its temporary folder is removed at the end and on Ctrl-C.',
    flags: {},
  },
  help: {
    name: 'help',
    summary: 'the usage and flags of a command',
    description: 'Prints the list of commands, or with a command, its usage and flags (the same as COMMAND --help).',
    positional: { name: 'COMMAND', description: 'the command to describe' },
    flags: {},
  },
  version: {
    name: 'version',
    summary: 'print the version (also --version)',
    description: 'Prints the version of sts-volume-gitops and of the Node.js that runs it.',
    flags: { json },
  },
} as const satisfies Record<string, CommandSpec>;

const sandboxEnv = 'Talks to a running GitHub sandbox (`npx sts-volume-gitops sandbox`) through its REST API, at $STS_SANDBOX_GITHUB_URL with the token in $STS_SANDBOX_GITHUB_TOKEN (the sandbox prints both), on $STS_SANDBOX_GITHUB_REPOSITORY (default: acme/platform-gitops, the sandbox\'s).';
const prNumber = { name: 'NUMBER', description: 'the pull request\'s number', required: true } as const;

/** `sandbox pr ACTION`: the GitHub sandbox's pull requests, driven as a person on github.com would. */
export const sandboxPullRequestTable = {
  open: {
    name: 'sandbox pr open',
    summary: 'open a pull request on the GitHub sandbox',
    description: `Opens a pull request from a branch pushed to the sandbox's repository; the sandbox delivers pull_request opened. ${sandboxEnv}`,
    flags: {
      head: { type: 'string', value: 'BRANCH', required: true, description: 'the branch with the change' },
      title: { type: 'string', value: 'TEXT', required: true, description: 'the pull request\'s title' },
      base: { type: 'string', value: 'BRANCH', description: 'the branch to merge into (default: the repository\'s default branch)' },
      body: { type: 'string', value: 'TEXT', description: 'the pull request\'s description' },
      json,
    },
  },
  merge: {
    name: 'sandbox pr merge',
    summary: 'merge a pull request on the GitHub sandbox',
    description: `Merges the pull request; the sandbox delivers the push to its base branch and pull_request closed. ${sandboxEnv}`,
    positional: prNumber,
    flags: { method: { type: 'string', value: 'merge|squash', description: 'how to merge (default: merge)' }, json },
  },
  close: {
    name: 'sandbox pr close',
    summary: 'close a pull request without merging it',
    description: `Closes the pull request unmerged; the sandbox delivers pull_request closed. ${sandboxEnv}`,
    positional: prNumber,
    flags: { json },
  },
  reopen: {
    name: 'sandbox pr reopen',
    summary: 'reopen a closed pull request',
    description: `Reopens the pull request; the sandbox delivers pull_request reopened. ${sandboxEnv}`,
    positional: prNumber,
    flags: { json },
  },
  rerun: {
    name: 'sandbox pr rerun',
    summary: 'press Re-run on this tool\'s checks of a pull request',
    description: `Asks for this tool's check runs on the pull request's head again (POST .../check-runs/{id}/rerequest, as the Re-run button); the sandbox delivers check_run rerequested. ${sandboxEnv}`,
    positional: prNumber,
    flags: { check: { type: 'string', value: 'NAME', description: 'only the check run of this name (default: every sts-volume-gitops/validate check on the head)' }, json },
  },
} as const satisfies Record<string, CommandSpec>;

export type SandboxPullRequestAction = keyof typeof sandboxPullRequestTable;

export function isSandboxPullRequestAction(name: string | undefined): name is SandboxPullRequestAction {
  return name !== undefined && Object.hasOwn(sandboxPullRequestTable, name);
}

export type CommandName = keyof typeof commandTable;

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(commandTable, name);
}
