import { join } from 'node:path';

/** The deploy/ directory (this project's root). */
export const deployDir = join(__dirname, '..');

/** The repository root. */
export const repoRoot = join(deployDir, '..');
