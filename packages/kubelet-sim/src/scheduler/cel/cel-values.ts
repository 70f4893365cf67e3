import { objectType, type CelObjectType } from '@bufbuild/cel';
import { create, createFileRegistry, type DescMessage } from '@bufbuild/protobuf';
import { reflect, type ReflectMessage } from '@bufbuild/protobuf/reflect';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { fraction, quantityKey, type Quantity } from './quantity';
import { parseSemver, semverKey, type Semver } from './semver';

// CEL values of the Kubernetes library types are messages with one field, the value's canonical text: the
// evaluator's message equality then is the library's value equality (1.0.0 == 1.0.0+build, 1 == 1000m).
const registry = createFileRegistry(
  create(FileDescriptorProtoSchema, {
    name: 'kdp/kubernetes-cel.proto',
    package: 'kubernetes',
    syntax: 'proto3',
    messageType: ['Semver', 'Quantity'].map((name) => ({
      name,
      field: [{ name: 'key', number: 1, type: 9 /* string */, label: 1 /* optional */, jsonName: 'key' }],
    })),
  }),
  () => undefined,
);

const descOf = (name: string): DescMessage => {
  const desc = registry.getMessage(`kubernetes.${name}`);
  if (desc === undefined) throw new Error(`internal error: no descriptor for kubernetes.${name}`);
  return desc;
};
const semverDesc = descOf('Semver');
const quantityDesc = descOf('Quantity');

/** The CEL type `kubernetes.Semver`. */
export const SEMVER_TYPE: CelObjectType = objectType(semverDesc);
/** The CEL type `kubernetes.Quantity`. */
export const QUANTITY_TYPE: CelObjectType = objectType(quantityDesc);

const keyOf = (value: ReflectMessage): string => (value.message as unknown as { key: string }).key;

/** A semantic version as a CEL value. */
export const semverValue = (v: Semver): ReflectMessage =>
  reflect(semverDesc, create(semverDesc, { key: semverKey(v) } as never));
/** A CEL semver value back as a {@link Semver}. */
export const semverOf = (value: ReflectMessage): Semver => parseSemver(keyOf(value));

/** A quantity as a CEL value. */
export const quantityValue = (q: Quantity): ReflectMessage =>
  reflect(quantityDesc, create(quantityDesc, { key: quantityKey(q) } as never));
/** A CEL quantity value back as a {@link Quantity}. */
export function quantityOf(value: ReflectMessage): Quantity {
  const [num = '0', den = '1'] = keyOf(value).split('/');
  return fraction(BigInt(num), BigInt(den));
}
