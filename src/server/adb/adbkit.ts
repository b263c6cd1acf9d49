// adbkit is CommonJS with an `exports.default`; under NodeNext the default import is module.exports.
import adbkit from '@devicefarmer/adbkit';
import type Client from '@devicefarmer/adbkit/dist/src/adb/client.js';
import type DeviceClient from '@devicefarmer/adbkit/dist/src/adb/DeviceClient.js';

export const Adb = adbkit.Adb;
export type { Client, DeviceClient };
