const SHOWN = 8;
const MAX_ID = 80;

/** Quotes up to eight IDs for an error message (long or hostile IDs cut short), then says how many more. */
export function describeIds(ids: readonly string[]): string {
  const shown = ids
    .slice(0, SHOWN)
    .map((id) => JSON.stringify(id.length > MAX_ID ? `${id.slice(0, MAX_ID)}…` : id));
  const more = ids.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}
