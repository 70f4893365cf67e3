/** The path of the pinned kubectl or helm, set by tools/kube-tools/jest-global-setup.cjs; throws when unset. */
export function kubeToolPath(tool: 'kubectl' | 'helm'): string {
  const variable = tool === 'kubectl' ? 'KDP_KUBECTL' : 'KDP_HELM';
  const path = process.env[variable];
  if (path === undefined || path === '')
    throw new Error(
      `${variable} is unset: run these tests through deploy/jest.config.cjs, whose globalSetup unpacks the pinned ${tool} (tools/kube-tools)`,
    );
  return path;
}
