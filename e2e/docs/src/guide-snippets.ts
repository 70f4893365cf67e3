import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceRoot } from './run-process';

/** The README holding the author guide, between `<!-- author-guide:start -->` and `<!-- author-guide:end -->`. */
export const README = 'packages/core/README.md';

/** A ```ts block of the author guide. */
export interface Snippet {
  readonly line: number;
  readonly code: string;
  /** The file the snippet quotes, relative to the repository root, or undefined for a standalone module. */
  readonly quotes: string | undefined;
}

/** The ```ts blocks of the author-guide section, each with the quote marker that precedes it, if any. */
export function guideSnippets(): Snippet[] {
  const text = readFileSync(join(workspaceRoot, README), 'utf8');
  const start = text.indexOf('<!-- author-guide:start -->');
  const end = text.indexOf('<!-- author-guide:end -->');
  if (start < 0 || end < start) throw new Error(`${README}: author-guide markers missing`);
  const firstLine = text.slice(0, start).split('\n').length;
  const lines = text.slice(start, end).split('\n');
  const snippets: Snippet[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```ts') continue;
    const close = lines.indexOf('```', i + 1);
    let previous = i - 1;
    while (previous >= 0 && lines[previous]?.trim() === '') previous--;
    const marker = /^<!-- quote: (\S+) -->$/.exec(lines[previous] ?? '');
    snippets.push({ line: firstLine + i, code: lines.slice(i + 1, close).join('\n'), quotes: marker?.[1] });
    i = close;
  }
  return snippets;
}

/** Whether `excerpt` is a run of consecutive lines of `source`, all shifted left by the same indentation. */
export function isExcerpt(source: string, excerpt: string): boolean {
  const lines = source.split('\n');
  const wanted = excerpt.split('\n');
  return lines.some((first, start) => {
    const indent = /^ */.exec(first)?.[0] ?? '';
    return wanted.every((line, i) => {
      const actual = lines[start + i];
      if (actual === undefined) return false;
      return line === '' ? actual.trim() === '' : actual === indent + line;
    });
  });
}
