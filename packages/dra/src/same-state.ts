/** Whether two states hold the same records (by identity). */
export function sameState(a: ReadonlyMap<string, unknown>, b: ReadonlyMap<string, unknown>): boolean {
  return a.size === b.size && [...a].every(([key, value]) => b.get(key) === value);
}
