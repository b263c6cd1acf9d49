export { startServer, type RunningServer, type ServerOptions } from './app.js';
export { resolveSecret, createApiKey } from './secret.js';
export { missingFeatures, type MissingFeatures } from './optionalFeatures.js';
export { findChromium } from './chromium/findChromium.js';
