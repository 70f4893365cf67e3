import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { repoRoot } from './deploy-dir';
import { deployedPlugins } from './kdp-plugins';

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Job {
  needs?: string | string[];
  if?: string;
  permissions?: Record<string, string>;
  strategy?: { matrix?: Record<string, unknown> };
  steps: Step[];
}
interface Workflow {
  on: Record<string, unknown>;
  permissions?: Record<string, string>;
  jobs: Record<string, Job>;
}

const workflow = (name: string): Workflow =>
  parse(readFileSync(join(repoRoot, '.github', 'workflows', name), 'utf8')) as Workflow;
const plugins = workflow('plugins.yml');
const ci = workflow('ci.yml');
const allJobs = [...Object.values(plugins.jobs), ...Object.values(ci.jobs)];

/** The targets an Nx project has: those in its project.json, `test` where jest is configured, `lint` (inferred for all). */
function targetsOf(project: string): Set<string> {
  const folder = join(repoRoot, 'packages', project.replace(/^@kdp\//, ''));
  const json = JSON.parse(readFileSync(join(folder, 'project.json'), 'utf8')) as {
    name: string;
    targets?: object;
  };
  expect(json.name).toBe(project);
  const targets = new Set([...Object.keys(json.targets ?? {}), 'lint']);
  if (existsSync(join(folder, 'jest.config.cjs'))) targets.add('test');
  return targets;
}

/** What the matrix runs over: every deployed plugin (the all-in-one too), and the device monitor (deploy/monitor). */
const images = [
  ...deployedPlugins.map((plugin) => ({ name: plugin.name, project: `@kdp/${plugin.packageDir}` })),
  { name: 'monitor', project: '@kdp/monitor' },
];

/** Every `nx run P:T` and `nx run-many -t T… --projects=P` of the plugin jobs, once per image of the matrix. */
function nxReferences(): { project: string; target: string }[] {
  const runs = Object.values(plugins.jobs).flatMap((job) => job.steps.map((step) => step.run ?? ''));
  return images.flatMap((image) =>
    runs
      .map((run) => run.replace(/\$\{\{ matrix\.image\.project \}\}/g, image.project))
      .flatMap((run) => {
        const single = [...run.matchAll(/nx run (@kdp\/[\w-]+):([\w-]+)/g)].map((m) => ({
          project: m[1] ?? '',
          target: m[2] ?? '',
        }));
        const many = [...run.matchAll(/nx run-many -t ([\w ]+?) --projects=(@kdp\/[\w-]+)/g)].flatMap((m) =>
          (m[1] ?? '').split(' ').map((target) => ({ project: m[2] ?? '', target })),
        );
        return [...single, ...many];
      }),
  );
}

function affected(args: string[], stdin: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [join(repoRoot, '.github', 'scripts', 'affected-plugins.mjs'), ...args],
      (error, stdout) =>
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout }),
    );
    child.stdin?.end(stdin);
  });
}

describe('.github/workflows/plugins.yml', () => {
  it('runs on pull requests and pushes to main', () => {
    expect(Object.keys(plugins.on)).toEqual(expect.arrayContaining(['push', 'pull_request']));
  });

  it('has one matrix job per affected image, and the list covers exactly the five plugins, kdp-device-plugins and the monitor', async () => {
    for (const name of ['plugin', 'push']) {
      expect(plugins.jobs[name]?.strategy?.matrix?.['image']).toBe(
        '${{ fromJSON(needs.affected.outputs.images) }}',
      );
    }
    expect(JSON.parse((await affected(['--all'], '')).stdout)).toEqual(images);
    const some = await affected(
      [],
      JSON.stringify([
        '@kdp/core',
        '@kdp/plugin-usb',
        'deploy',
        '@kdp/monitor',
        '@kdp/device-plugins',
        '@kdp/plugin-gpu',
      ]),
    );
    expect(JSON.parse(some.stdout)).toEqual([
      { name: 'gpu', project: '@kdp/plugin-gpu' },
      { name: 'usb', project: '@kdp/plugin-usb' },
      { name: 'device-plugins', project: '@kdp/device-plugins' },
      { name: 'monitor', project: '@kdp/monitor' },
    ]);
    expect(JSON.parse((await affected([], '[]')).stdout)).toEqual([]);
    expect((await affected([], 'not json')).code).toBe(2);
    const affectedRun = plugins.jobs['affected']?.steps.map((s) => s.run ?? '').join('\n') ?? '';
    expect(affectedRun).toContain('nx show projects --affected');
  });

  it('every Nx project and target it runs exists', () => {
    const references = nxReferences();
    expect(references.map((r) => r.target)).toEqual(
      expect.arrayContaining(['lint', 'typecheck', 'test', 'build', 'image']),
    );
    // The image target comes with tools/image (issue 11, the images helper); checked once that has landed.
    const imagesLanded = existsSync(join(repoRoot, 'tools', 'image'));
    const missing = references.filter(
      ({ project, target }) => !targetsOf(project).has(target) && (imagesLanded || target !== 'image'),
    );
    expect(missing).toEqual([]);
  });

  it('checks out full history (Nx affected needs the base commit) and uses Node 20 with the npm cache', () => {
    for (const job of Object.values(plugins.jobs)) {
      const checkout = job.steps.find((s) => s.uses?.startsWith('actions/checkout@'));
      expect(checkout?.with?.['fetch-depth']).toBe(0);
      const node = job.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
      expect(node?.with).toEqual({ 'node-version': 20, cache: 'npm' });
      expect(job.steps.some((s) => s.run?.startsWith('npm ci'))).toBe(true);
    }
    for (const name of ['plugin', 'push']) {
      expect(
        plugins.jobs[name]?.steps.some((s) =>
          /apt-get install .*umoci skopeo runc binutils binutils-aarch64-linux-gnu/.test(s.run ?? ''),
        ),
      ).toBe(true);
    }
  });

  it('grants contents: read only, and packages: write only to the push job, which runs only for main', () => {
    expect(plugins.permissions).toEqual({ contents: 'read' });
    expect(ci.permissions).toEqual({ contents: 'read' });
    for (const [name, job] of Object.entries(plugins.jobs)) {
      if (name === 'push') expect(job.permissions).toEqual({ contents: 'read', packages: 'write' });
      else expect(job.permissions).toBeUndefined();
    }
    expect(plugins.jobs['push']?.if).toContain(
      "github.event_name == 'push' && github.ref == 'refs/heads/main'",
    );
    const push = plugins.jobs['push']?.steps.map((s) => s.run ?? '').join('\n');
    expect(push).toContain(':image -- --push docker://ghcr.io/kdp-dev --tag ${{ github.sha }}');
  });

  it('pins every action to a full commit SHA', () => {
    const uses = allJobs
      .flatMap((job) => job.steps.map((s) => s.uses))
      .filter((u): u is string => u !== undefined);
    expect(uses.length).toBeGreaterThan(0);
    for (const action of uses) expect(action).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/);
  });
});

describe('.github/workflows/ci.yml', () => {
  it('runs the project CI entry point, bash .ci/run', () => {
    expect(existsSync(join(repoRoot, '.ci', 'run'))).toBe(true);
    expect(ci.jobs['ci']?.steps.some((s) => /\bbash \.ci\/run$/.test(s.run ?? ''))).toBe(true);
  });
});
