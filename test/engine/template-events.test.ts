// The Events a pass records for a template (engine/report/template-events.ts), as kubectl shows them: a class change is said
// as one, never as a resize (issue 35 item 6: "VolumeClaimTemplateResized ... reached 1Gi in VolumeAttributesClass fast").
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { templateFinishedEvent, templatesUpdatedEvent, templateUpdateChange } from '../../functions/engine/report/template-events.ts';
import type { TemplateStatus } from '../../functions/engine/report/template-status.ts';
import { q, templatePlan } from './builders.ts';

const status = (change: TemplateStatus['change'], replicas = 2, desiredClass?: string): TemplateStatus => ({
  templateName: 'data', desiredSize: '1Gi', commitSha: 'c0ffee', replicas, readyReplicas: replicas, ...(change ? { change } : {}),
  ...(desiredClass !== undefined ? { desiredClass } : {}),
});

describe('the Events of a template change', () => {
  it('a class change alone finishes as VolumeClaimTemplateClassChanged, naming the class and no size', () => {
    assert.deepEqual(templateFinishedEvent(status('class', 2, 'fast')), { reason: 'VolumeClaimTemplateClassChanged', message: 'all 2 PVCs of data are in VolumeAttributesClass fast' });
    assert.deepEqual(templateFinishedEvent(status('class', 1, 'fast')), { reason: 'VolumeClaimTemplateClassChanged', message: 'the PVC of data is in VolumeAttributesClass fast' });
  });

  it('a resize finishes as VolumeClaimTemplateResized, with the class only when it changed too', () => {
    assert.deepEqual(templateFinishedEvent(status('size', 2, 'fast')), { reason: 'VolumeClaimTemplateResized', message: 'all 2 PVCs of data reached 1Gi' });
    assert.deepEqual(templateFinishedEvent(status('size-and-class', 3, 'fast')), { reason: 'VolumeClaimTemplateResized', message: 'all 3 PVCs of data reached 1Gi in VolumeAttributesClass fast' });
    assert.deepEqual(templateFinishedEvent(status(undefined)), { reason: 'VolumeClaimTemplateResized', message: 'all 2 PVCs of data reached 1Gi' });
  });

  it('a template update names what it changes: the size, the class, or both', () => {
    const classOnly = templateUpdateChange(templatePlan([], { size: '1Gi', className: 'fast', volumeAttributesClass: { from: 'slow', to: 'fast' } }));
    const sizeOnly = templateUpdateChange(templatePlan([], { size: '2Gi', from: q('1Gi') }));
    const both = templateUpdateChange(templatePlan([], { size: '2Gi', from: q('1Gi'), className: 'fast', volumeAttributesClass: { from: undefined, to: 'fast' } }));
    assert.deepEqual(templatesUpdatedEvent([classOnly, sizeOnly, both], 'abcdef0123456789'), {
      reason: 'UpdatedVolumeClaimTemplates',
      message: 'volumeClaimTemplates data -> VolumeAttributesClass fast, data -> 2Gi, data -> 2Gi and VolumeAttributesClass fast from commit abcdef012345',
    });
  });
});
