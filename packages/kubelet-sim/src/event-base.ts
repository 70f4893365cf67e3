/** Fields every simulator event carries: its type and a high-resolution epoch timestamp in ms. */
export interface EventBase<T extends string> {
  readonly type: T;
  readonly at: number;
}
