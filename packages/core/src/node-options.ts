/** The options this process's Node was started with: `process.execArgv` and the words of `NODE_OPTIONS`. */
export function processNodeOptions(): readonly string[] {
  return [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/).filter((w) => w !== '')];
}

/** Whether one of `options` is a V8 flag that `choice` matches, spelt with `-` or `_` (`--no_maglev`). */
export function chosenByUser(options: readonly string[], choice: RegExp): boolean {
  return options.some((option) => choice.test(option.replaceAll('_', '-')));
}
