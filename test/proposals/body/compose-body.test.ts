// One body for every kind of proposal: the marker first, then the kind's sections and the lifecycle's in one order,
// the slots a kind leaves empty left out, and the change table escaping what it quotes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { composeBody, type ProposalBody } from '../../../functions/proposals/body/compose-body.ts';
import { costSection } from '../../../functions/proposals/body/cost.ts';
import { evidenceSection } from '../../../functions/proposals/body/evidence.ts';
import { footerSection } from '../../../functions/proposals/body/footer.ts';
import { headerSection } from '../../../functions/proposals/body/header.ts';
import { notesSection } from '../../../functions/proposals/body/notes.ts';
import { onMergeSection } from '../../../functions/proposals/body/on-merge.ts';
import { parseQuantity } from '../../../functions/domain/quantity.ts';

const edit = { path: 'apps/pg/values_prod.yaml', line: 4, field: 'storage' as const, from: '10Gi', to: '20Gi', before: '', after: '' };

describe('a proposal body', () => {
  const body: ProposalBody = {
    header: headerSection('db/pg `data` is 81% full', '1 of 2 volumes is above 80%:'),
    evidence: evidenceSection(['data-pg-0: 8.1Gi of 10Gi'], { intro: 'What Prometheus said:', text: 'kubelet_volume_stats_used_bytes 8.1Gi' }),
    own: [{ heading: 'Why 20Gi', lines: ['One step of 10Gi.'] }],
    cost: costSection({ direction: 'The volumes grow from 10Gi to 20Gi.', growth: 20n * 2n ** 30n, like: parseQuantity('20Gi'), storageClassName: 'gp3', prices: { currency: 'USD', perGiBMonth: { gp3: 0.08 } } }),
    notes: notesSection('Alternatives', ['Delete old data.']),
    onMerge: onMergeSection('The next pass grows the volumes.'),
  };

  it('puts the sections in one order, the marker first and the footer last', () => {
    const text = composeBody(body, { marker: '<!-- m -->', edit, footer: footerSection('usage rises a further step') });
    const order = ['<!-- m -->', '## db/pg `data` is 81% full', '- data-pg-0', 'What Prometheus said:', 'This pull request changes one value:',
      '## Why 20Gi', '## What it changes', '## Alternatives', '## After merge', '<sub>Opened by sts-volume-gitops'];
    const positions = order.map((part) => text.indexOf(part));
    assert.ok(positions.every((p) => p >= 0), JSON.stringify(positions));
    assert.deepEqual([...positions].sort((a, b) => a - b), positions);
    assert.ok(text.startsWith('<!-- m -->\n'));
    assert.match(text, /\| apps\/pg\/values\\_prod\.yaml \| 4 \| storage \| 10Gi \| 20Gi \|/);
    assert.match(text, /\n## What it changes\n\nThe volumes grow from 10Gi to 20Gi\. That adds \\\+1\.60 USD a month \\\(20Gi more on gp3 at 0\.08 USD per GiB-month\\\)\.\n/);
    assert.match(text, /not proposed again until usage rises a further step\.<\/sub>$/);
  });

  it('leaves out what a kind does not fill, and the frame when there is none', () => {
    assert.equal(composeBody({ header: headerSection('H', 'lead'), onMerge: onMergeSection('merged') }), '## H\n\nlead\n\n## After merge\n\nmerged');
  });
});
