// A change above the maximum its driver stated is blocked before it is applied (a pull request's check included): the
// expansion would be refused as before, and each refused size is a claim left asking for it (KEP-1790 lowers a request
// only to above its capacity). Known from what a driver says now on any claim read (its error condition) and from what
// passes remembered on the status annotations (remembered-maximum.ts), per driver: the StorageClass's provisioner. Pure.
import type { ClusterSnapshot } from '../../domain/live-state.ts';
import { formatBytesLike } from '../../domain/quantity.ts';
import type { BlockReason, TemplatePlan } from './plan-types.ts';
import { forgotten, rememberedUntil, statementsOn, type RememberedMaximum } from '../volumes/remembered-maximum.ts';
import { readStatusAnnotation, statusAnnotation } from '../report/template-status.ts';

/**
 * Per driver, the maximum it last stated: said now on a claim, or remembered and not forgotten or contradicted. `now`
 * undefined forgets nothing by age.
 */
export function knownMaxima(snapshot: ClusterSnapshot, now: Date | undefined): Map<string, RememberedMaximum> {
  const driverOf = new Map(snapshot.storageClasses.flatMap((c) => (c.provisioner ? [[c.name, c.provisioner] as const] : [])));
  // A volume of the driver larger than a statement's maximum shows it was raised since: the largest, per driver.
  const largest = new Map<string, bigint>();
  const statements: RememberedMaximum[] = [];
  for (const namespace of snapshot.namespaces.values()) {
    for (const pvc of namespace.pvcs) {
      const driver = pvc.storageClassName === undefined ? undefined : driverOf.get(pvc.storageClassName);
      if (driver === undefined) continue;
      if (pvc.capacity && pvc.capacity.bytes > (largest.get(driver) ?? 0n)) largest.set(driver, pvc.capacity.bytes);
      // Most claims have no condition: no statements to look for (once a pass over every claim, shared by plan and usage).
      if (pvc.conditions.length > 0) statements.push(...statementsOn([pvc], driver));
    }
    // A set's own annotation, or (a set its operator writes) its replica-0 claim's: status-carrier.ts.
    const remembered = (annotations: Record<string, string> | undefined): void => {
      if (annotations?.[statusAnnotation] === undefined) return;
      for (const status of readStatusAnnotation({ annotations })) {
        if (isStatement(status.driverMaximum) && (now === undefined || !forgotten(status.driverMaximum, now))) statements.push(status.driverMaximum);
      }
    };
    for (const sts of namespace.statefulSets) remembered(sts.annotations);
    for (const pvc of namespace.pvcs) remembered(pvc.annotations);
  }
  const known = new Map<string, RememberedMaximum>();
  for (const statement of statements) {
    if (BigInt(statement.bytes) < (largest.get(statement.driver) ?? 0n)) continue;
    const held = known.get(statement.driver);
    if (!held || isNewer(statement, held)) known.set(statement.driver, statement);
  }
  return known;
}

/** The driver's latest word stands (a maximum raised and said again); of two said at once, the smaller. */
function isNewer(a: RememberedMaximum, b: RememberedMaximum): boolean {
  const [at, bt] = [Date.parse(a.saidAt), Date.parse(b.saidAt)];
  return at !== bt ? at > bt : BigInt(a.bytes) < BigInt(b.bytes);
}

/** An annotation is written by this tool but can be edited by anyone who may edit the set: only a whole one is read. */
function isStatement(value: unknown): value is RememberedMaximum {
  const s = value as Partial<RememberedMaximum> | undefined;
  return typeof s === 'object' && s !== null && typeof s.driver === 'string' && typeof s.words === 'string' && typeof s.saidAt === 'string'
    && typeof s.claim === 'string' && typeof s.bytes === 'string' && /^\d{1,30}$/.test(s.bytes);
}

/** Why a template change is blocked by its driver's stated maximum, if it is: it asks for more than the driver provides. */
export function aboveDriverMaximum(template: TemplatePlan, known: ReadonlyMap<string, RememberedMaximum>): BlockReason | undefined {
  const statement = template.driver === undefined ? undefined : known.get(template.driver);
  if (!statement) return undefined;
  const maximum = BigInt(statement.bytes);
  if (template.to.bytes <= maximum) return undefined;
  const size = formatBytesLike(maximum, template.to);
  const full = template.pvcs.length > 0 && template.pvcs.every((p) => p.capacity !== undefined && p.capacity.bytes >= maximum);
  const until = rememberedUntil(statement);
  return {
    code: 'above-driver-maximum',
    message: `${template.desired.storageText} is above the driver's maximum, ${size}: ${statement.driver} said at ${statement.saidAt}, of ${statement.claim}, `
      + `"${statement.words}". The expansion would be refused as that one was, and a refused request cannot be taken back to the volume's size `
      + `(KEP-1790). ${full ? `The volumes have ${size} already, so no larger size can succeed on this driver: keep ${size}, `
        + 'or move the data to a StorageClass whose driver allows more (new claims: a migration)' : `Ask for ${size} at most`}, `
      + `or raise the driver's maximum first${until ? ` (what it said is remembered until ${until}, or until a volume of the driver is larger)` : ''}`,
  };
}
