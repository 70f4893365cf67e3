import { createDeviceSelectorCompiler, type DeviceSelector } from './device-selector-compiler';
import type { SelectorDevice } from './device-input';
import { formatQuantity, parseQuantity } from './quantity';

const compiler = createDeviceSelectorCompiler();

const selector = (expression: string): DeviceSelector => {
  const result = compiler.compile(expression);
  if (!result.ok) throw new Error(result.message);
  return result.selector;
};

const gpu: SelectorDevice = {
  driver: 'gpu.example.com',
  attributes: {
    model: { string: 'LATEST-GPU-MODEL' },
    index: { int: 3 },
    dra: { bool: true },
    driverVersion: { version: '1.2.3-rc.1+build5' },
    'resource.kubernetes.io/pcieRoot': { string: 'pci0000:00' },
  },
  capacity: { memory: { value: '40Gi' }, 'example.com/cores': { value: '1500m' } },
};

describe('createDeviceSelectorCompiler', () => {
  it.each([
    ['device.driver == "gpu.example.com"', true],
    ['device.attributes["gpu.example.com"].model == "LATEST-GPU-MODEL"', true],
    ['device.attributes["gpu.example.com"].index > 2 && device.attributes["gpu.example.com"].dra', true],
    ['device.attributes["resource.kubernetes.io"].pcieRoot.startsWith("pci")', true],
    ['device.capacity["gpu.example.com"].memory.compareTo(quantity("10Gi")) >= 0', true],
    ['device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("40960Mi"))', false],
    ['device.capacity["example.com"].cores == quantity("1.5")', true],
    ['device.capacity["example.com"].cores.isInteger()', false],
    ['device.capacity["gpu.example.com"].memory.asInteger() == 42949672960', true],
    ['device.capacity["gpu.example.com"].memory.add(1).sub(quantity("1")).sign() == 1', true],
    ['device.attributes["gpu.example.com"].driverVersion.isLessThan(semver("1.2.3"))', true],
    ['device.attributes["gpu.example.com"].driverVersion == semver("1.2.3-rc.1")', true],
    ['device.attributes["gpu.example.com"].driverVersion.major() == 1', true],
    ['semver("v1.2", true).compareTo(semver("1.2.0")) == 0 && !isSemver("v1.2")', true],
    [
      'cel.bind(g, device.attributes["gpu.example.com"], g.model.lowerAscii() == "latest-gpu-model" && g.index == 3)',
      true,
    ],
    ['device.attributes["gpu.example.com"].exists(k, k == "model")', true],
    [
      '"model" in device.attributes["gpu.example.com"] && !("x" in device.attributes["none.example.com"])',
      true,
    ],
    ['size(device.attributes["other.example.com"]) == 0', true],
    ['device.allowMultipleAllocations', false],
    ['has(device.attributes["gpu.example.com"].index)', true],
  ])('%s is %s', (expression, expected) => {
    expect(selector(expression).matches(gpu)).toBe(expected);
  });

  it.each([
    ['device.driver', 'must evaluate to bool or the unknown type, not string'],
    ['device.capacity["a"].x', 'must evaluate to bool or the unknown type, not kubernetes.Quantity'],
  ])('rejects the non-bool %s', (expression, message) => {
    expect(compiler.compile(expression)).toEqual({ ok: false, message });
  });

  it('words compile errors as kube-apiserver does', () => {
    expect(compiler.compile('device.foo == 1')).toEqual({
      ok: false,
      message:
        "compilation failed: ERROR: <input>:1:7: undefined field 'foo'\n | device.foo == 1\n | ......^",
    });
    expect(compiler.compile('dev.driver == "x"')).toMatchObject({
      ok: false,
      message: expect.stringContaining("undeclared reference to 'dev' (in container '')"),
    });
    expect(compiler.compile('semver("1.0.0").isGreaterThan(1)')).toMatchObject({
      message: expect.stringContaining(
        "found no matching overload for 'isGreaterThan' applied to 'kubernetes.Semver.(int)'",
      ),
    });
    expect(compiler.compile('device.driver == 1')).toMatchObject({ ok: false });
    expect(compiler.compile('device.driver ==')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^compilation failed: ERROR: <input>:1:\d+: Syntax error: /),
    });
    expect(compiler.compile('nosuch(device.driver)')).toMatchObject({ ok: false });
  });

  it('throws on runtime errors: a missing attribute is an error, not a non-match', () => {
    const missing = selector('device.attributes["gpu.example.com"].nosuch == "x"');
    expect(() => missing.matches(gpu)).toThrow('no such key: nosuch');
    expect(() => selector('quantity("bad") == quantity("1")').matches(gpu)).toThrow();
    expect(() =>
      selector('device.driver != ""').matches({ driver: 'd', attributes: { v: { version: 'x.y' } } }),
    ).toThrow('attribute v: parse semantic version');
  });

  it('keys unqualified names by the driver and qualified ones by their domain', () => {
    const s = selector(
      'device.attributes["d.example.com"].a == 1 && device.attributes["x.example.com"].b == 2',
    );
    expect(
      s.matches({ driver: 'd.example.com', attributes: { a: { int: 1 }, 'x.example.com/b': { int: 2 } } }),
    ).toBe(true);
  });
});

describe('selector property: comparisons agree with the library order', () => {
  const versions = [
    '0.0.1',
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-alpha.beta',
    '1.0.0-beta',
    '1.0.0-beta.2',
    '1.0.0-beta.11',
    '1.0.0-rc.1',
    '1.0.0',
    '1.2.3',
    '10.0.0',
  ];
  const quantities = ['-1', '0', '100m', '0.5', '1', '1k', '1Ki', '1.5Mi', '2M', '1Gi', '1e10'];
  it.each([
    ['semver', versions],
    ['quantity', quantities],
  ])('%s: isLessThan, isGreaterThan and compareTo follow the list order', (fn, list) => {
    list.forEach((a, i) =>
      list.forEach((b, j) => {
        const expected = Math.sign(i - j);
        const expr = `${fn}("${a}").compareTo(${fn}("${b}")) == ${expected} && ${fn}("${a}").isLessThan(${fn}("${b}")) == ${i < j} && ${fn}("${a}").isGreaterThan(${fn}("${b}")) == ${i > j} && (${fn}("${a}") == ${fn}("${b}")) == ${i === j}`;
        expect([a, b, selector(expr).matches({ driver: 'd' })]).toEqual([a, b, true]);
      }),
    );
  });
});

describe('expressions from the Kubernetes and driver documentation', () => {
  const nvidia: SelectorDevice = {
    driver: 'gpu.nvidia.com',
    attributes: {
      type: { string: 'gpu' },
      productName: { string: 'NVIDIA A100-SXM4-40GB' },
      architecture: { string: 'Ampere' },
      cudaComputeCapability: { version: '8.0.0' },
      driverVersion: { version: '550.54.15' },
      'resource.kubernetes.io/pcieRoot': { string: 'pci0000:00' },
    },
    capacity: { memory: { value: '40Gi' } },
  };
  it.each([
    ["device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'", true],
    ['device.attributes["gpu.nvidia.com"].productName.lowerAscii().contains("a100")', true],
    ['device.attributes["gpu.nvidia.com"].productName.matches("^NVIDIA A100.*$")', true],
    ["device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('32Gi')) >= 0", true],
    ['device.attributes["gpu.nvidia.com"].cudaComputeCapability.isGreaterThan(semver("7.5.0"))', true],
    ['device.attributes["gpu.nvidia.com"].driverVersion.compareTo(semver("550.0.0")) >= 0', true],
    ['cel.bind(g, device.attributes["gpu.nvidia.com"], g.architecture == "Ampere" && g.type == "gpu")', true],
    ['"gpu.nvidia.com" in device.attributes && !device.allowMultipleAllocations', true],
    ['device.capacity["gpu.nvidia.com"].memory.asApproximateFloat() > 4.0e10', true],
    ['device.attributes["gpu.nvidia.com"].type == "gpu" ? true : false', true],
    ['["Ampere", "Hopper"].exists(a, a == device.attributes["gpu.nvidia.com"].architecture)', true],
    ['device.attributes["gpu.nvidia.com"].productName.split(" ").size() == 2', true],
  ])('%s', (expression, expected) => {
    expect(selector(expression).matches(nvidia)).toBe(expected);
  });

  it.each([
    [
      'device.attributes["gpu.nvidia.com"].driverVersion > semver("1.0.0")',
      "found no matching overload for '_>_'",
    ],
    [
      'quantity("1").asInteger() + "a" == 1',
      "found no matching overload for '_+_' applied to '(int, string)'",
    ],
    ['device.driver.size()', 'must evaluate to bool or the unknown type, not int'],
    ['[device.driver]', 'must evaluate to bool or the unknown type, not list(string)'],
    ['device.driver.foo == 1', "type 'string' does not support field selection"],
    [
      'device.driver ? true : false',
      "found no matching overload for '_?_:_' applied to '(string, bool, bool)'",
    ],
    ['true ? device.attributes["a"].b : "x"', 'must evaluate to bool or the unknown type, not string'],
  ])('rejects %s', (expression, message) => {
    expect(compiler.compile(expression)).toMatchObject({
      ok: false,
      message: expect.stringContaining(message),
    });
  });
});

describe('formatQuantity', () => {
  it.each([
    ['20Gi', '20Gi'],
    ['21474836480', '20Gi'],
    ['1536Mi', '1536Mi'],
    ['2000', '2k'],
    ['1500', '1500'],
    ['0.5', '500m'],
    ['0', '0'],
    ['-1Ki', '-1Ki'],
  ])('%s reads as %s', (text, expected) => {
    expect(formatQuantity(parseQuantity(text))).toBe(expected);
  });
});
