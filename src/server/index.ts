export { startServer, type RunningServer, type ServerOptions } from './http/app.js';
export { resolveSecret, createApiKey } from './http/secret.js';
export { missingFeatures, type MissingFeatures } from './http/optionalFeatures.js';
export { findChromium } from './devices/linux/chromium/findChromium.js';
