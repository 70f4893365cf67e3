import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultMetricsAddress, parseCliArgs } from './parse-cli-args';

// deploy/monitor/daemonset.yaml must start a monitor these flags accept, with the promised least privilege.
const daemonSet = readFileSync(
  join(__dirname, '..', '..', '..', 'deploy', 'monitor', 'daemonset.yaml'),
  'utf8',
);

describe('deploy/monitor/daemonset.yaml', () => {
  it('passes arguments that device-monitor accepts, scraping each single plugin on the node IP', () => {
    // The kubelet expands $(VAR) from the container's env: NODE_IP is status.hostIP, PLUGIN_METRICS_PORTS a value.
    expect(daemonSet).toMatch(/- name: NODE_IP\n\s+valueFrom:\n\s+fieldRef:\n\s+fieldPath: status.hostIP\n/);
    const ports = /- name: PLUGIN_METRICS_PORTS\n\s+value: '([^']*)'/.exec(daemonSet)?.[1] ?? '';
    const block = /^ {10}args:\n((?: {12}(?:- .*|#.*)\n)+)/m.exec(daemonSet)?.[1] ?? '';
    const args = block
      .split('\n')
      .map((line) => /^ {12}- (.*)$/.exec(line)?.[1])
      .filter((arg): arg is string => arg !== undefined)
      .map((arg) => arg.replace('$(NODE_IP)', '10.0.0.1').replace('$(PLUGIN_METRICS_PORTS)', ports));
    expect(args.length).toBeGreaterThanOrEqual(4);
    const parsed = parseCliArgs(args);
    expect(parsed).toMatchObject({
      ok: true,
      command: {
        kind: 'run',
        podResourcesSocket: '/var/lib/kubelet/pod-resources/kubelet.sock',
        metricsAddress: expect.stringMatching(/:9410$/),
        pluginMetrics: [9401, 9402, 9403, 9404, 9405].map((port) => `http://10.0.0.1:${port}/metrics`),
      },
    });
    expect(defaultMetricsAddress.endsWith(':9410')).toBe(true);
    expect(daemonSet).toContain('containerPort: 9410');
  });

  it('mounts the pod-resources directory read-only and runs with least privilege', () => {
    expect(daemonSet).toMatch(
      /- name: pod-resources\n\s+mountPath: \/var\/lib\/kubelet\/pod-resources\n\s+readOnly: true/,
    );
    expect(daemonSet).toMatch(/hostPath:\n\s+path: \/var\/lib\/kubelet\/pod-resources\n\s+type: Directory/);
    for (const line of [
      'privileged: false',
      'allowPrivilegeEscalation: false',
      'readOnlyRootFilesystem: true',
      'drop: [ALL]',
      'type: RuntimeDefault',
      'automountServiceAccountToken: false',
    ]) {
      expect(daemonSet).toContain(line);
    }
    expect(daemonSet).not.toMatch(/add:|hostNetwork: true|hostPID|privileged: true/);
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe', 'requests:', 'limits:'])
      expect(daemonSet).toContain(probe);
  });
});
