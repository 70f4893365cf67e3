import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PLUGIN_NAMES } from './plugin-names';
import { EXPECTED_RESOURCES } from './sample-node/sample-configs';
import { samplePodName } from './steps/admit-sample-pods';
import { bundlePlugins } from './testing/bundle-plugins';

const outDir = join(__dirname, '..', 'dist', 'spec-run');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runBundle(args: readonly string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(outDir, 'demo', 'dist', 'main.js'), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(() => {
  bundlePlugins(outDir, { demo: true, allInOne: true });
}, 180_000);

describe.each([
  [
    'five plugin processes',
    [],
    'Stopped the plugins with SIGTERM (exit codes: gpu 0, sriov 0, infiniband 0, usb 0, fpga 0).',
  ],
  [
    '--all-in-one: kdp-device-plugins',
    ['--all-in-one'],
    'Stopped kdp-device-plugins with SIGTERM (exit code 0).',
  ],
])('kdp-demo --once as a process, %s', (_mode, flags, stopped) => {
  let run: Run;

  beforeAll(async () => {
    run = await runBundle(['--once', ...flags]);
  }, 120_000);

  it('exits 0 with nothing on stderr', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('shows every resource registering with its devices, and the table', () => {
    for (const { plugin, resource, devices } of EXPECTED_RESOURCES) {
      const line = run.stdout
        .split('\n')
        .find((l) => l.trim().startsWith(`${plugin} `) && l.includes(' registered '));
      expect(line).toContain(`${resource} (${devices} device${devices === 1 ? '' : 's'})`);
    }
    expect(run.stdout).toContain('── devices as kubelet-sim sees them ──');
    expect(run.stdout).toContain(
      'kubelet-sim: 9/9 resources registered, 17 devices, 17 healthy, 0 unhealthy',
    );
  });

  it('admits a pod per resource and shows what its container receives', () => {
    for (const { resource } of EXPECTED_RESOURCES) {
      expect(run.stdout).toContain(`pod ${samplePodName(resource)}: ${resource} × 1 → `);
    }
    expect(run.stdout).toMatch(/NVIDIA_VISIBLE_DEVICES=GPU-/);
    expect(run.stdout).toMatch(/cdi +k8s\.device-plugin\.nvidia\.com\/gpu=GPU-/);
    expect(run.stdout).toMatch(/devices +\/dev\/kfd \(rw\), \/dev\/dri\/card0/);
    expect(run.stdout).toMatch(/PCIDEVICE_INTEL_COM_SRIOV_DPDK=0000:3b:01\.\d/);
    expect(run.stdout).toMatch(/\/dev\/infiniband\/uverbs\d \(rw\)/);
    expect(run.stdout).toMatch(/KDP_USB_ZIGBEE_TTY=\/dev\/ttyACM0/);
    expect(run.stdout).toMatch(/KDP_FPGA_AFU_ID=d8424dc4a4a3c413f89e433683f9040b/);
  });

  it("shows the GPU failing and recovering with measured latencies and the plugin's log lines", () => {
    expect(run.stdout).toMatch(
      /kubelet-sim sees GPU-c81e0f5d-\S+ Unhealthy after \d+ ms \(allocatable 1 of 2\)/,
    );
    expect(run.stdout).toContain(
      '→ the gpu plugin logged "device unhealthy", problem: /dev/nvidia1 is missing',
    );
    expect(run.stdout).toContain(
      'kubelet-sim: 9/9 resources registered, 17 devices, 16 healthy, 1 unhealthy',
    );
    expect(run.stdout).toMatch(
      /kubelet-sim sees GPU-c81e0f5d-\S+ Healthy after \d+ ms \(allocatable 2 of 2\)/,
    );
    expect(run.stdout).toContain('→ the gpu plugin logged "device healthy again"');
  });

  it('serves the USB devices through the DRA playground: slices, a claim the scheduler allocates by CEL, a Running pod', () => {
    expect(run.stdout).toMatch(
      /usb\.kdp\.dev registered through the plugin watcher \(v1\.DRAPlugin \+ v1\.DRAResourceHealth\) and published 3 pools, 5 devices/,
    );
    expect(run.stdout).toMatch(
      /kdp-demo-node\/example\.com\/serial +a50285bi-[0-9a-f]{8} +A50285BI +0403:6001 +A50285BI/,
    );
    // The device-plugin pod holds A50285BI; the claim's CEL selector leaves it out, so the scheduler picks the other.
    expect(run.stdout).toContain('serial != "A50285BI"');
    expect(run.stdout).toMatch(
      /the scheduler allocated kdp-demo-node\/example\.com\/serial\/a7042z1q-[0-9a-f]{8} .*reserved the claim for pod dra-serial/,
    );
    expect(run.stdout).toMatch(/pod dra-serial: Running \d+ ms after its creation/);
    // Under DRA a device's environment has names of its own (they compose with other devices' in one container).
    expect(run.stdout).toMatch(/env +KDP_USB_SERIAL_BUS_A7042Z1Q_[0-9A-F]{8}=\/dev\/bus\/usb\/001\/003\n/);
    expect(run.stdout).toMatch(/devices +\/dev\/bus\/usb\/001\/003, \/dev\/ttyUSB1\n/);
    expect(run.stdout).toMatch(/cdi +usb\.kdp\.dev\/claim=[0-9a-f-]{36}-a7042z1q-[0-9a-f]{8}\n/);
    expect(run.stdout).toMatch(
      /kubectl --kubeconfig \S+\/kubeconfig wait --for=condition=Ready pod\/dra-serial/,
    );
    expect(run.stdout).toMatch(
      /pod dra-serial deleted: claim dra-serial-port unprepared in \d+ ms, its CDI spec removed/,
    );
    expect(run.stdout).toMatch(
      /usb\.kdp\.dev: registered again after \d+ ms; the kubelet deleted the node's 3 ResourceSlices, the driver published its 5 devices again after \d+ ms/,
    );
    expect(run.stdout).toContain('Stopped the DRA driver (usb-dra) with SIGTERM (exit code 0).');
  });

  it('shows every plugin re-registering after the kubelet restart, then cleans up', () => {
    for (const plugin of PLUGIN_NAMES) {
      expect(run.stdout).toMatch(new RegExp(`\\n  ${plugin} +re-registered .* after \\d+ ms`));
    }
    expect(run.stdout).toContain('── after the kubelet restart ──');
    expect(run.stdout).toMatch(/All steps passed in \d+ ms\./);
    expect(run.stdout).toContain(stopped);
    const removed = /Removed (\S+)\.\n$/.exec(run.stdout)?.[1];
    expect(removed).toBeDefined();
    expect(existsSync(removed as string)).toBe(false);
  });
});

describe('kdp-demo while it runs: real kubectl against its DRA playground', () => {
  it('creates the printed manifests, waits for the pod to be Ready, sees its devices, deletes them', async () => {
    const kubectlPath = process.env['KDP_KUBECTL'] ?? '';
    expect(kubectlPath).not.toBe('');
    const home = mkdtempSync(join(tmpdir(), 'kdp-demo-kubectl-'));
    const child = spawn(process.execPath, [join(outDir, 'demo', 'dist', 'main.js')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const following = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('Ctrl-C stops.')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`kdp-demo exited ${code}: ${stdout}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await following;
      const kubeconfig = /^ {4}kubectl --kubeconfig (\S+) create -f (\S+)$/m.exec(stdout);
      expect(kubeconfig).not.toBeNull();
      const [, config = '', manifests = ''] = kubeconfig ?? [];
      const kubectl = (...args: string[]): Promise<string> =>
        new Promise((resolve, reject) =>
          execFile(
            kubectlPath,
            ['--kubeconfig', config, ...args],
            { env: { ...process.env, HOME: home } },
            (err, out, errOut) =>
              err === null ? resolve(out) : reject(new Error(`${err.message}${errOut}`)),
          ),
        );
      expect(await kubectl('create', '-f', manifests)).toContain('pod/dra-serial created');
      expect(await kubectl('wait', '--for=condition=Ready', 'pod/dra-serial', '--timeout=60s')).toBe(
        'pod/dra-serial condition met\n',
      );
      const pod = JSON.parse(await kubectl('get', 'pod', 'dra-serial', '-o', 'json')) as {
        status: { phase: string };
        metadata: { annotations: Record<string, string> };
      };
      expect(pod.status.phase).toBe('Running');
      expect(pod.metadata.annotations['kubelet-sim.kdp.dev/container-devices']).toMatch(
        /usb\.kdp\.dev\/claim=[0-9a-f-]{36}-a7042z1q-[0-9a-f]{8}/,
      );
      expect(await kubectl('delete', '-f', manifests)).toContain('pod "dra-serial" deleted');
    } finally {
      child.kill('SIGTERM');
      const code = await exited;
      rmSync(home, { recursive: true, force: true });
      expect(code).toBe(0);
    }
  }, 120_000);
});

describe('kdp-demo arguments', () => {
  it('rejects an unknown argument with exit code 2 and the usage', async () => {
    const bad = await runBundle(['--nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('kdp-demo: unknown argument "--nope"');
    expect(bad.stderr).toContain('Usage: kdp-demo [--once] [--all-in-one]');
  }, 30_000);
});
