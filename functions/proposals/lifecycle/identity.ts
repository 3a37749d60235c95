// A proposal's identity, in one place: the template it is about, its kind, the key that names the template in reports,
// links and markers (`namespace/statefulset/template`, built and parsed here only), the branch it lives on and the
// labels its pull request carries. A new kind of proposal adds its name and one row to `kindIdentities`.

/** The kinds of proposal; write-back comes next. */
export type ProposalKindName = 'size-recovery' | 'class-recovery' | 'growth';

/** A StatefulSet's volume claim template, which a proposal is about. */
export interface TemplateRef {
  namespace: string;
  statefulSet: string;
  template: string;
}

/** At most one pull request of each kind per template and target at a time. */
export interface ProposalIdentity extends TemplateRef {
  kind: ProposalKindName;
}

interface KindIdentity {
  /** `sts-volume-gitops/<folder>/<target>/<namespace>/<statefulset>/<template><suffix>`. */
  branchFolder: string;
  branchSuffix: string;
  labels: readonly string[];
  /** What the pull request is, in the write log and in the comment that closes it: `recovery`. */
  noun: string;
  /** What of the template it is about, when not its size: `class`. */
  aspect?: string;
}

const kindIdentities: Readonly<Record<ProposalKindName, KindIdentity>> = {
  'size-recovery': { branchFolder: 'recover', branchSuffix: '', labels: ['sts-volume-gitops', 'volume-recovery'], noun: 'recovery' },
  // A template name is a DNS label: it holds no dot, so `data.class` is never another template's branch.
  'class-recovery': { branchFolder: 'recover', branchSuffix: '.class', labels: ['sts-volume-gitops', 'volume-recovery'], noun: 'recovery', aspect: 'class' },
  growth: { branchFolder: 'grow', branchSuffix: '', labels: ['sts-volume-gitops', 'volume-growth'], noun: 'growth' },
};

export function isProposalKindName(name: string): name is ProposalKindName {
  return Object.hasOwn(kindIdentities, name);
}

/** `namespace/statefulset/template`: how reports, links and markers name a template. */
export function templateKey(ref: TemplateRef): string {
  return `${ref.namespace}/${ref.statefulSet}/${ref.template}`;
}

/** The template a key names; undefined for anything else (names of Kubernetes objects hold no `/`). */
export function parseTemplateKey(key: string): TemplateRef | undefined {
  const parts = key.split('/');
  const [namespace, statefulSet, template] = parts;
  if (parts.length !== 3 || !namespace || !statefulSet || !template) return undefined;
  return { namespace, statefulSet, template };
}

/** Every proposal's branch starts with this: one listing of open pull requests finds them all. */
export const proposalBranchRoot = 'sts-volume-gitops/';

/** The one branch a proposal lives on, for `target` (targets may share a repository). */
export function proposalBranch(target: string, identity: ProposalIdentity): string {
  const { branchFolder, branchSuffix } = kindIdentities[identity.kind];
  return `${proposalBranchRoot}${branchFolder}/${target}/${templateKey(identity)}${branchSuffix}`;
}

/** The labels a kind's pull requests are opened with. */
export function proposalLabels(kind: ProposalKindName): readonly string[] {
  return kindIdentities[kind].labels;
}

/** What a kind's pull request is called in the write log and the closing comment. */
export function proposalNoun(kind: ProposalKindName): string {
  return kindIdentities[kind].noun;
}

/** What of the template a kind's proposals are about, when not its size: `class`. */
export function proposalAspect(kind: ProposalKindName): string | undefined {
  return kindIdentities[kind].aspect;
}

/** `recovery of db/pg/data`, `recovery of db/pg/data (class)`: a proposal in deferred steps and log lines. */
export function describeProposal(kind: ProposalKindName, key: string): string {
  const aspect = proposalAspect(kind);
  return `${proposalNoun(kind)} of ${key}${aspect === undefined ? '' : ` (${aspect})`}`;
}

/** Put on the pull requests this tool closes itself, so a closure of ours is never read as a person declining it. */
export const closedByToolLabel = 'closed-by-sts-volume-gitops';

export function isClosedByTool(pull: { labels: readonly string[] }): boolean {
  return pull.labels.includes(closedByToolLabel);
}
