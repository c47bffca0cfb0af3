/**
 * A table whose rows are not records of the API but what happened to one (a customer's tracked
 * events, and their names' dictionary): its changes are neither in the activity log nor in the
 * change feed, and a write of such rows alone records nothing (no numbering pass follows it). A
 * million tracked events are a million rows, not a million changes to audit.
 */
export function Unrecorded(): ClassDecorator {
  return (target) => {
    unrecorded.add(target);
  };
}

const unrecorded = new Set<unknown>();

/** Whether the entity (or a base class) is declared Unrecorded. */
export function isUnrecorded(entity: unknown): boolean {
  for (let c = entity; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    if (unrecorded.has(c)) return true;
  }
  return false;
}
