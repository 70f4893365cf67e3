import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { claimConfigPolicyYaml, driverConfigKinds, policyFile } from './claim-config-policies';
import { deployDir } from './deploy-dir';
import { kustomizeBuild } from './kustomize-build';
import { draVariants } from './kdp-plugins';

// The claim configuration policies under deploy/dra/policies are generated from the drivers' kinds (one schema:
// the driver's decoder and this CEL). KDP_UPDATE_POLICIES=1 rewrites them; otherwise a stale file fails here.
const plugins = Object.keys(driverConfigKinds);

describe('deploy/dra/policies: each driver’s claim configuration policy, generated from its schema', () => {
  it.each(plugins)('%s: the committed file is the generated one', (plugin) => {
    const path = join(deployDir, policyFile(plugin));
    const expected = claimConfigPolicyYaml(plugin);
    if (process.env['KDP_UPDATE_POLICIES'] === '1') {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, expected);
    }
    expect(readFileSync(path, 'utf8')).toBe(expected);
  });

  it('is applied with each driver: deploy/dra/<plugin> holds its policy, the all-in-one every one', () => {
    for (const variant of draVariants) {
      const objects = kustomizeBuild(join(deployDir, variant.dir));
      const names = objects
        .filter((o) => o.kind === 'ValidatingAdmissionPolicy' && o.metadata.name.endsWith('-claim-config'))
        .map((o) => o.metadata.name ?? '')
        .sort();
      expect(names).toEqual(variant.drivers.map((driver) => `${driver}-claim-config`).sort());
    }
  });
});
