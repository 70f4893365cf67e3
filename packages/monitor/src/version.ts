import packageJson from '../package.json';

/** The version of @kdp/monitor, from its package.json. */
export const monitorVersion: string = packageJson.version;
