// Flow files, the config and the Box API share one "did you mean" (src/api/suggest.ts).
export { didYouMean, hint } from '../api/suggest.js';
