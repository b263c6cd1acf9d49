// adbkit is CommonJS with an `exports.default`; under NodeNext the default import is module.exports.
import adbkit from '@devicefarmer/adbkit';
export type { Client, DeviceClient } from '@devicefarmer/adbkit';

export const Adb = adbkit.Adb;
