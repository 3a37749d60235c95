// A proposal's identity in one place: the template key built and parsed once, one branch per kind, template and
// target, and the body marker written and read by one file (with the recovery marker older versions wrote).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  describeProposal, parseTemplateKey, proposalBranch, proposalBranchRoot, templateKey, type ProposalIdentity,
} from '../../../functions/proposals/lifecycle/identity.ts';
import { readMarker, sameValues, writeMarker } from '../../../functions/proposals/lifecycle/marker.ts';

const ref = { namespace: 'db', statefulSet: 'pg', template: 'data' };
const size: ProposalIdentity = { kind: 'size-recovery', ...ref };
const klass: ProposalIdentity = { kind: 'class-recovery', ...ref };

describe('a proposal\'s identity', () => {
  it('names a template namespace/statefulset/template and reads back only such a key', () => {
    assert.equal(templateKey(ref), 'db/pg/data');
    assert.deepEqual(parseTemplateKey('db/pg/data'), ref);
    for (const wrong of ['db/pg', 'db/pg/data/x', 'db//data', '']) assert.equal(parseTemplateKey(wrong), undefined, wrong);
  });

  it('gives each kind its own branch per target and template, all under one root', () => {
    assert.equal(proposalBranch('demo', size), 'sts-volume-gitops/recover/demo/db/pg/data');
    assert.equal(proposalBranch('demo', klass), 'sts-volume-gitops/recover/demo/db/pg/data.class');
    assert.notEqual(proposalBranch('demo', size), proposalBranch('staging', size));
    assert.ok(proposalBranch('demo', klass).startsWith(proposalBranchRoot));
  });

  it('says which proposal a log line is about', () => {
    assert.equal(describeProposal('size-recovery', 'db/pg/data'), 'recovery of db/pg/data');
    assert.equal(describeProposal('class-recovery', 'db/pg/data'), 'recovery of db/pg/data (class)');
  });
});

describe('the marker of a proposal\'s body', () => {
  it('reads back what it writes, wherever it stands in the body', () => {
    const mark = { identity: klass, values: { from: 'gold plated', to: 'silver' } };
    const marker = writeMarker(mark);
    assert.equal(marker, '<!-- sts-volume-gitops:proposal kind=class-recovery key=db/pg/data from=gold%20plated to=silver -->');
    assert.deepEqual(readMarker(`## Title\n\n${marker}\n\ntext`), mark);
  });

  it('reads the recovery markers of versions before it, a class recovery by its key', () => {
    assert.deepEqual(readMarker('<!-- sts-volume-gitops:recovery key=db/pg/data failed=100Gi proposed=50Gi -->'), { identity: size, values: { from: '100Gi', to: '50Gi' } });
    assert.deepEqual(readMarker('<!-- sts-volume-gitops:recovery key=db/pg/data.volume-attributes-class failed=gold proposed=silver -->'),
      { identity: klass, values: { from: 'gold', to: 'silver' } });
  });

  it('takes nothing else for a marker: an unknown kind, a key that names no template, plain text', () => {
    for (const body of [
      '<!-- sts-volume-gitops:proposal kind=shrink key=db/pg/data from=1 to=2 -->',
      '<!-- sts-volume-gitops:proposal kind=size-recovery key=db/pg from=1 to=2 -->',
      'sts-volume-gitops:proposal kind=size-recovery key=db/pg/data',
      '',
    ]) assert.equal(readMarker(body), undefined, body);
  });

  it('compares proposals by their values, all of them', () => {
    assert.ok(sameValues({ from: '100Gi', to: '50Gi' }, { to: '50Gi', from: '100Gi' }));
    assert.ok(!sameValues({ from: '100Gi', to: '50Gi' }, { from: '80Gi', to: '50Gi' }));
    assert.ok(!sameValues({ from: '100Gi' }, { from: '100Gi', to: '50Gi' }));
  });
});
