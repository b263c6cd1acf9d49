export * from './schemas.js';
export * from './duration.js';
export { check, formatProblem, type SchemaProblem } from './validate.js';
export { BoxClient, BoxApiError, codeForStatus, encodeQuery, normalizeBaseUrl, retryAfterMs, type BoxClientOptions, type RequestOptions } from './client.js';
