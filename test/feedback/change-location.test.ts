// Where the check's annotation and the comment's link point for a template's change: the class's line when only the
// class changes, else the size's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changeLocation } from '../../functions/feedback/change-location.ts';

const storageLocation = { path: 'apps/pg/values.yaml', line: 4, column: 11 };
const classLocation = { path: 'apps/pg/values.yaml', line: 5, column: 32 };

describe('changeLocation', () => {
  it('points at the class for a class change alone, at the size otherwise', () => {
    const classChange = { from: 'silver', to: 'gold' };
    assert.deepEqual(changeLocation({ storageLocation, classLocation, volumeAttributesClass: classChange, from: '10Gi', desiredSize: '10Gi' }), classLocation);
    assert.deepEqual(changeLocation({ storageLocation, classLocation, volumeAttributesClass: classChange, from: '10Gi', desiredSize: '20Gi' }), storageLocation);
    assert.deepEqual(changeLocation({ storageLocation, classLocation, from: '10Gi', desiredSize: '20Gi' }), storageLocation);
    assert.deepEqual(changeLocation({ storageLocation, volumeAttributesClass: classChange, from: '10Gi', desiredSize: '10Gi' }), storageLocation);
  });
});
