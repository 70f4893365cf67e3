/** All k-element combinations of `items`, in lexicographic order of positions. */
export function* combinations<T>(items: readonly T[], k: number): Generator<T[]> {
  const positions = Array.from({ length: k }, (_, i) => i);
  if (k > items.length) return;
  for (;;) {
    yield positions.map((p) => items[p] as T);
    let i = k - 1;
    while (i >= 0 && positions[i] === items.length - k + i) i--;
    if (i < 0) return;
    positions[i] = (positions[i] as number) + 1;
    for (let j = i + 1; j < k; j++) positions[j] = (positions[j - 1] as number) + 1;
  }
}
