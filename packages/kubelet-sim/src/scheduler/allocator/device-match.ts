import type { CompileResult } from '../cel/device-selector-compiler';
import type { DeviceClass, DeviceSelectorSpec, NodeInfo, ResourceClaim } from '../dra-types';
import { nodeMatches } from '../node-selector';
import { AllocationError, type Candidate, claimRef } from './request-data';

/** Whether a device passes the class's and the request's selectors (cached); CEL errors abort the allocation. */
export type DeviceMatcher = (
  key: string,
  claim: ResourceClaim,
  cls: DeviceClass,
  selectors: readonly DeviceSelectorSpec[],
  c: Candidate,
) => boolean;

/** Creates the matcher for one allocation on `node`. */
export function createDeviceMatcher(
  node: NodeInfo,
  compile: (expression: string) => CompileResult,
): DeviceMatcher {
  const cache = new Map<string, boolean>();
  const selectorsMatch = (owner: string, selectors: readonly DeviceSelectorSpec[], c: Candidate): boolean => {
    for (const [i, s] of selectors.entries()) {
      const compiled = compile(s.cel?.expression ?? '');
      if (!compiled.ok)
        throw new AllocationError(`${owner}: selector #${i}: CEL compile error: ${compiled.message}`);
      let matches: boolean;
      try {
        matches = compiled.selector.matches({ driver: c.pool.driver, ...c.device });
      } catch (err) {
        throw new AllocationError(
          `${owner}: selector #${i} on device ${c.id}: CEL runtime error: ${(err as Error).message}`,
        );
      }
      if (!matches) return false;
    }
    return true;
  };
  return (key, claim, cls, selectors, c) => {
    const cached = cache.get(key);
    if (cached !== undefined) return cached;
    // Devices with binding conditions are left alone, as upstream does with DRADeviceBindingConditions off.
    const result =
      (c.device.bindingConditions ?? []).length === 0 &&
      selectorsMatch(`class ${cls.metadata.name ?? ''}`, cls.spec?.selectors ?? [], c) &&
      selectorsMatch(`claim ${claimRef(claim)}`, selectors, c) &&
      (c.slice.spec.perDeviceNodeSelection !== true || nodeMatches(node, c.device));
    cache.set(key, result);
    return result;
  };
}
