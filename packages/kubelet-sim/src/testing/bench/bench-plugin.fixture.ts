// A test plugin process for run-plugin-bench.spec.ts: `node bench-plugin.js DIR STATE LAG_MS`. Its devices are
// the JSON `{ "ids": [...], "unhealthy": [...] }` in the file STATE, re-read LAG_MS after every change of it.
import { readFileSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { type Device, Healthy, Unhealthy } from '@kdp/api';
import { createTestPlugin } from '../test-plugin';

interface State {
  readonly ids: string[];
  readonly unhealthy: string[];
}

async function main(): Promise<void> {
  const [dir = '', stateFile = '', lag = '0'] = process.argv.slice(2);
  const devices = (): Device[] => {
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as State;
    return state.ids.map((ID) => ({
      ID,
      health: state.unhealthy.includes(ID) ? Unhealthy : Healthy,
      topology: undefined,
    }));
  };
  const plugin = await createTestPlugin({ dir, resource: 'example.com/bench', devices: devices() });
  watch(dirname(stateFile), (_, name) => {
    if (name === basename(stateFile)) setTimeout(() => plugin.setDevices(devices()), Number(lag));
  });
  process.on('SIGTERM', () => void plugin.stop().then(() => process.exit(0)));
}

void main();
