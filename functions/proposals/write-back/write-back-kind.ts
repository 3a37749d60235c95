// Write-back as the proposals lifecycle sees it: an open write-back is no longer needed once Git says at least the size
// it proposes (Git caught up another way: a person's own pull request, a merge of this one), or the template left Git
// on a complete clean pass; a person's close holds until the live size grows beyond what it proposed. Pure.
import { reportedQuantity } from '../../domain/quantity.ts';
import type { PassReport } from '../../engine/report/pass-report.ts';
import { templateKey } from '../lifecycle/identity.ts';
import type { ProposalMark, ProposalValues } from '../lifecycle/marker.ts';
import { templateInPass } from '../lifecycle/template-in-pass.ts';
import type { ProposalKind } from '../proposal.ts';

/** Bytes of a size a marker carries; undefined for anything that is not a quantity (a marker a person edited). */
const bytesOf = (size: string | undefined): bigint | undefined => reportedQuantity(size)?.bytes;

export const writeBackKind: ProposalKind = {
  name: 'write-back',
  resolution: (report, open) => writeBackResolution(report, open),
  changedSinceDeclined: (declined: ProposalValues, now: ProposalValues) => {
    const [before, after] = [bytesOf(declined.to), bytesOf(now.to)];
    return before === undefined || after === undefined || after > before;
  },
  reproposedWhen: 'the live size grows beyond the size it proposed',
};

function writeBackResolution(report: PassReport, open: ProposalMark): string | undefined {
  const found = templateInPass(report, open.identity);
  if (found === 'gone') return `${templateKey(open.identity)} is no longer in Git`;
  if (found === 'unknown') return undefined;
  const [git, proposed] = [bytesOf(found.template.desiredSize), bytesOf(open.values.to)];
  if (git === undefined || proposed === undefined || git < proposed) return undefined;
  return `Git now says ${found.template.desiredSize}, at least the live size ${open.values.to ?? ''} it proposed`;
}
