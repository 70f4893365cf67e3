import type { PlaygroundDevice } from './playground-driver.fixture';

/** The driver of the playground tests. */
export const testDriver = 'gpu.example.com';

/** Its devices: two small, two large (none `huge`). */
export const testDevices: readonly PlaygroundDevice[] = [
  { name: 'small-0', model: 'small' },
  { name: 'small-1', model: 'small' },
  { name: 'large-0', model: 'large' },
  { name: 'large-1', model: 'large' },
];

/** A DeviceClass in `resource.k8s.io/<version>` selecting the test driver by CEL. */
export const deviceClassManifest = (version: string): string => `
apiVersion: resource.k8s.io/${version}
kind: DeviceClass
metadata:
  name: ${testDriver}
spec:
  selectors:
  - cel:
      expression: device.driver == "${testDriver}"
`;

/** A pod named `name` whose one container `main` uses every device of ResourceClaim `claim`. */
export const onePodManifest = (name: string, claim: string): string => `
apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  resourceClaims:
  - name: gpu
    resourceClaimName: ${claim}
  containers:
  - name: main
    image: registry.k8s.io/pause:3.10
    resources:
      claims:
      - name: gpu
`;

const model = (name: string): string => `device.attributes["${testDriver}"].model == "${name}"`;

/**
 * A DeviceClass selecting the driver by CEL; a claim with request `small` (one small device) and request `big`
 * (`firstAvailable`: a `huge` device, none exists, else two `large`); a pod whose two containers name one
 * request each.
 */
export const twoRequestsManifest = `${deviceClassManifest('v1')}---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: two-requests
spec:
  devices:
    requests:
    - name: small
      exactly:
        deviceClassName: ${testDriver}
        selectors:
        - cel:
            expression: '${model('small')}'
    - name: big
      firstAvailable:
      - name: huge
        deviceClassName: ${testDriver}
        selectors:
        - cel:
            expression: '${model('huge')}'
      - name: large
        deviceClassName: ${testDriver}
        count: 2
        selectors:
        - cel:
            expression: '${model('large')}'
---
apiVersion: v1
kind: Pod
metadata:
  name: two-containers
spec:
  resourceClaims:
  - name: gpus
    resourceClaimName: two-requests
  containers:
  - name: small
    image: registry.k8s.io/pause:3.10
    resources:
      claims:
      - name: gpus
        request: small
  - name: big
    image: registry.k8s.io/pause:3.10
    resources:
      claims:
      - name: gpus
        request: big
`;

/** A ResourceClaim `name` of one device of the test driver, with a CEL selector when `expression` is given. */
export const oneDeviceClaimManifest = (name: string, expression?: string): string => `
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: ${name}
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: ${testDriver}${
          expression === undefined
            ? ''
            : `
        selectors:
        - cel:
            expression: '${expression}'`
        }
`;

/** A claim no device matches and a pod using it. */
export const matchesNothingManifest = `${oneDeviceClaimManifest('matches-nothing', model('huge'))}---${onePodManifest('stuck', 'matches-nothing')}`;
