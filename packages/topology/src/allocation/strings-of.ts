/** The strings of a list that may hold anything (the kubelet's lists are not checked): [] for no list. */
export function stringsOf(values: readonly unknown[] | undefined): string[] {
  return Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : [];
}
