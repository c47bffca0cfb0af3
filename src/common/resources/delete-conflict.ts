import { DeleteConflict } from '../http/api-exception.js';

/** The 409 of API-CONVENTIONS §7 names what depends on the record: "2 campaign groups depend on it". */
export function refuseIfUsed(label: string, counts: [string, number][]): void {
  const used = counts.filter(([, n]) => n > 0);
  if (used.length === 0) return;
  const what = used.map(([name, n]) => `${n} ${name}${n === 1 ? '' : 's'}`).join(' and ');
  const single = used.length === 1 && used[0][1] === 1;
  throw new DeleteConflict(`The ${label} cannot be deleted: ${what} ${single ? 'depends' : 'depend'} on it.`);
}
