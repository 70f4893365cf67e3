import { join } from 'node:path';
import fc from 'fast-check';
import { parseArgs, UsageError } from './parse-args';

describe('parseArgs', () => {
  it('parses serve and check', () => {
    expect(parseArgs(['serve', '--dir', '/d', '--json', '--pod-resources-socket=/p.sock'])).toEqual({
      command: 'serve',
      dir: '/d',
      json: true,
      acceptV1alpha: false,
      podResourcesSocket: '/p.sock',
    });
    expect(
      parseArgs(['check', '--dir=/d', '--resource', 'a.com/b', '--pid', '42', '--restarts', '0']),
    ).toEqual({
      command: 'check',
      dir: '/d',
      json: false,
      resource: 'a.com/b',
      pid: 42,
      restarts: 0,
      timeoutSeconds: 30,
      strict: false,
    });
    expect(parseArgs(['check', '--dir', '/d', '--strict'])).toMatchObject({ command: 'check', strict: true });
    expect(parseArgs([])).toEqual({ command: 'help' });
    expect(parseArgs(['check', '--help'])).toEqual({ command: 'help' });
    expect(parseArgs(['--version'])).toEqual({ command: 'version' });
  });

  it('parses serve --dra', () => {
    expect(parseArgs(['serve', '--dra', '--plugins-registry', '/r'])).toEqual({
      command: 'serve-dra',
      pluginsRegistryDir: '/r',
      json: false,
      nodes: 1,
      cdiDir: '/var/run/cdi',
      devRoot: '/dev',
    });
    expect(
      parseArgs([
        'serve',
        '--dra',
        '--plugins-registry=/r',
        '--kubeconfig-out=/k',
        '--api-port=6443',
        '--node-name=n',
        '--nodes=3',
        '--cdi-dir=/c',
        '--dev-root=/d',
        '--pod-resources-socket=/p.sock',
        '--resource-api-version=v1beta1',
        '--dir=/s',
        '--json',
      ]),
    ).toEqual({
      command: 'serve-dra',
      pluginsRegistryDir: '/r',
      json: true,
      nodes: 3,
      cdiDir: '/c',
      devRoot: '/d',
      dir: '/s',
      nodeName: 'n',
      apiPort: 6443,
      kubeconfigOut: '/k',
      podResourcesSocket: '/p.sock',
      resourceApiVersion: 'v1beta1',
    });
  });

  it.each([
    [['frobnicate'], 'unknown command "frobnicate"; expected serve or check'],
    [['serve'], 'serve needs --dir DIR'],
    [['check', '--dir'], '--dir needs a value'],
    [['check', '--dir', 'a', '--dir', 'b'], '--dir given twice'],
    [['check', '--dir', 'a', '--pid', '0'], '--pid needs an integer of at least 1, got "0"'],
    [['check', '--dir', 'a', '--restarts=-1'], '--restarts needs an integer of at least 0, got "-1"'],
    [
      ['check', '--dir', 'a', '--restarts', '-1'],
      '--restarts needs a value; write --restarts=VALUE for one that starts with "-"',
    ],
    [['check', '--dir', 'a', '--json=yes'], '--json does not take a value'],
    [['check', '--dir', 'a', '--strict=no'], '--strict does not take a value'],
    [['serve', '--dir', 'a', '--strict'], 'unknown flag "--strict" for serve'],
    [['serve', '--dir', 'a', '--pid', '3'], 'unknown flag "--pid" for serve'],
    [['check', '--dir', 'a', 'extra'], 'unknown argument "extra" for check'],
    [['serve', '--dra'], 'serve --dra needs --plugins-registry DIR'],
    [['serve', '--dir', 'a', '--nodes', '2'], '--nodes needs --dra'],
    [
      ['serve', '--dra', '--plugins-registry', 'r', '--nodes', '0'],
      '--nodes needs an integer of at least 1, got "0"',
    ],
    [
      ['serve', '--dra', '--plugins-registry', 'r', '--api-port', '70000'],
      '--api-port needs a port of at most 65535, got 70000',
    ],
    [
      ['serve', '--dra', '--plugins-registry', 'r', '--accept-v1alpha'],
      '--accept-v1alpha is not a flag of serve --dra',
    ],
    [
      ['serve', '--dra', '--plugins-registry', 'r', '--node-name', 'Node_1'],
      '--node-name needs a DNS subdomain name, got "Node_1"',
    ],
    [
      ['serve', '--dra', '--plugins-registry', 'r', '--resource-api-version', 'v2'],
      '--resource-api-version needs one of v1, v1beta2, v1beta1, got "v2"',
    ],
    [['check', '--dra', '--plugins-registry-dir', 'r'], 'check --dra needs --driver NAME'],
    [['check', '--dra', '--driver', 'd'], 'check --dra needs --plugins-registry-dir DIR'],
    [['check', '--dir', 'a', '--driver', 'd'], '--driver needs --dra'],
    [
      ['check', '--dra', '--driver', 'd', '--plugins-registry-dir', 'r', '--pid', '3'],
      '--pid is not a flag of check --dra',
    ],
    [
      ['check', '--dra', '--driver', 'd', '--plugins-registry-dir', 'r', '--api-server', 'localhost:6443'],
      '--api-server needs an http:// or https:// URL, got "localhost:6443"',
    ],
    [
      [
        'check',
        '--dra',
        '--driver',
        'd',
        '--plugins-registry-dir',
        'r',
        '--api-server',
        'http://h',
        '--api-port',
        '1',
      ],
      '--api-port is for the built-in API server: not with --api-server',
    ],
    [
      ['check', '--dra', '--driver', 'd', '--plugins-registry-dir', 'r', '--token-file', 't'],
      '--token-file needs --api-server (the built-in API server takes no token)',
    ],
  ])('rejects %j', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(new UsageError(message));
  });

  it('parses check --dra: no --dir needed, paths absolute, defaults for the timeouts', () => {
    expect(parseArgs(['check', '--dra', '--driver', 'gpu.kdp.dev', '--plugins-registry-dir', 'reg'])).toEqual(
      {
        command: 'check-dra',
        driver: 'gpu.kdp.dev',
        pluginsRegistryDir: join(process.cwd(), 'reg'),
        json: false,
        strict: false,
        timeoutSeconds: 30,
        publishTimeoutSeconds: 10,
      },
    );
    expect(
      parseArgs([
        'check',
        '--dra',
        '--driver=d',
        '--plugins-registry-dir=/r',
        '--api-server=https://10.0.0.1:6443',
        '--token-file=/t',
        '--kubeconfig-out=/k',
        '--node-name=n',
        '--namespace=ns',
        '--cdi-dir=/cdi',
        '--dir=/d',
        '--timeout=5',
        '--publish-timeout=2',
        '--strict',
        '--json',
      ]),
    ).toEqual({
      command: 'check-dra',
      driver: 'd',
      pluginsRegistryDir: '/r',
      apiServer: 'https://10.0.0.1:6443',
      tokenFile: '/t',
      kubeconfigOut: '/k',
      nodeName: 'n',
      namespace: 'ns',
      cdiDir: '/cdi',
      dir: '/d',
      timeoutSeconds: 5,
      publishTimeoutSeconds: 2,
      strict: true,
      json: true,
    });
    expect(
      parseArgs(['check', '--dra', '--driver', 'd', '--plugins-registry-dir', '/r', '--api-port', '6443']),
    ).toMatchObject({
      apiPort: 6443,
    });
  });

  it('makes relative paths absolute, since gRPC reads unix:dp/x.sock as a host name', () => {
    expect(parseArgs(['serve', '--dir', 'dp', '--pod-resources-socket', 'pr/k.sock'])).toMatchObject({
      dir: join(process.cwd(), 'dp'),
      podResourcesSocket: join(process.cwd(), 'pr/k.sock'),
    });
    expect(parseArgs(['check', '--dir', './dp'])).toMatchObject({ dir: join(process.cwd(), 'dp') });
  });

  it('never throws anything but a UsageError', () => {
    const token = fc.oneof(
      fc.constantFrom(
        'serve',
        'check',
        '--dir',
        '--json',
        '--pid',
        '--restarts',
        '--resource',
        '--timeout',
        '--strict',
        '--dra',
        '--driver',
        '--plugins-registry-dir',
        '--api-server',
        '--api-port',
        '=',
        '--dir=',
      ),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 8 }), (argv) => {
        try {
          parseArgs(argv);
        } catch (err) {
          expect(err).toBeInstanceOf(UsageError);
        }
      }),
    );
  });
});
