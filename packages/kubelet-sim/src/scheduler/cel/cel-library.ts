import { celFunc, celMethod, CelScalar, type CelFunc } from '@bufbuild/cel';
import type { ReflectMessage } from '@bufbuild/protobuf/reflect';
import { QUANTITY_TYPE, quantityOf, quantityValue, SEMVER_TYPE, semverOf, semverValue } from './cel-values';
import {
  addQuantity,
  compareQuantity,
  fraction,
  isIntegerQuantity,
  parseQuantity,
  quantityToFloat,
  subQuantity,
} from './quantity';
import { compareSemver, parseSemver } from './semver';

const { BOOL, INT, STRING, DOUBLE } = CelScalar;
const int64Max = (1n << 63n) - 1n;
const int64Min = -(1n << 63n);

const succeeds = (fn: () => unknown): boolean => {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
};

const semverLib = (): CelFunc[] => {
  const cmp = (a: ReflectMessage, b: ReflectMessage): number => compareSemver(semverOf(a), semverOf(b));
  const part = (name: 'major' | 'minor' | 'patch'): CelFunc =>
    celMethod(name, SEMVER_TYPE, [], INT, function () {
      return semverOf(this)[name];
    });
  return [
    celFunc('semver', [STRING], SEMVER_TYPE, (s) => semverValue(parseSemver(s))),
    celFunc('semver', [STRING, BOOL], SEMVER_TYPE, (s, loose) => semverValue(parseSemver(s, loose))),
    celFunc('isSemver', [STRING], BOOL, (s) => succeeds(() => parseSemver(s))),
    celFunc('isSemver', [STRING, BOOL], BOOL, (s, loose) => succeeds(() => parseSemver(s, loose))),
    celMethod('isGreaterThan', SEMVER_TYPE, [SEMVER_TYPE], BOOL, function (o) {
      return cmp(this, o) > 0;
    }),
    celMethod('isLessThan', SEMVER_TYPE, [SEMVER_TYPE], BOOL, function (o) {
      return cmp(this, o) < 0;
    }),
    celMethod('compareTo', SEMVER_TYPE, [SEMVER_TYPE], INT, function (o) {
      return BigInt(cmp(this, o));
    }),
    part('major'),
    part('minor'),
    part('patch'),
  ];
};

const quantityLib = (): CelFunc[] => {
  const cmp = (a: ReflectMessage, b: ReflectMessage): number => compareQuantity(quantityOf(a), quantityOf(b));
  const q = QUANTITY_TYPE;
  const arith = (name: 'add' | 'sub', op: typeof addQuantity): CelFunc[] => [
    celMethod(name, q, [q], q, function (o) {
      return quantityValue(op(quantityOf(this), quantityOf(o)));
    }),
    celMethod(name, q, [INT], q, function (o) {
      return quantityValue(op(quantityOf(this), fraction(o, 1n)));
    }),
  ];
  return [
    celFunc('quantity', [STRING], q, (s) => quantityValue(parseQuantity(s))),
    celFunc('isQuantity', [STRING], BOOL, (s) => succeeds(() => parseQuantity(s))),
    celMethod('isInteger', q, [], BOOL, function () {
      const v = quantityOf(this);
      return isIntegerQuantity(v) && v.num <= int64Max && v.num >= int64Min;
    }),
    celMethod('asInteger', q, [], INT, function () {
      const v = quantityOf(this);
      if (!isIntegerQuantity(v) || v.num > int64Max || v.num < int64Min)
        throw new Error('cannot convert value to integer');
      return v.num;
    }),
    celMethod('asApproximateFloat', q, [], DOUBLE, function () {
      return quantityToFloat(quantityOf(this));
    }),
    celMethod('sign', q, [], INT, function () {
      return BigInt(compareQuantity(quantityOf(this), fraction(0n, 1n)));
    }),
    ...arith('add', addQuantity),
    ...arith('sub', subQuantity),
    celMethod('isGreaterThan', q, [q], BOOL, function (o) {
      return cmp(this, o) > 0;
    }),
    celMethod('isLessThan', q, [q], BOOL, function (o) {
      return cmp(this, o) < 0;
    }),
    celMethod('compareTo', q, [q], INT, function (o) {
      return BigInt(cmp(this, o));
    }),
  ];
};

/** The Kubernetes CEL library functions DRA selectors may call: semver and quantity. */
export const kubernetesCelFunctions = (): CelFunc[] => [...semverLib(), ...quantityLib()];
