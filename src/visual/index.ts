// Screenshot comparison and baseline files. Pure: no knowledge of flows or boxes.
export { compareImages, closeVisualPool, visualPoolInfo, visualPoolSize } from './pool.js';
export { compareImagesSync, diffLimit, kDefaultThreshold, validateCompareOptions, type CompareOptions, type CompareResult } from './compare.js';
export { stableCapture, type MaskedFrame, type StableCaptureOptions, type StableCaptureResult } from './stable.js';
export {
  baselineMasks, decideBaseline, kDefaultBaselineTemplate, kUpdateModes, resolveBaselinePath, sanitizeSegment, writeBaseline, writeFailureImages,
  type BaselineAction, type BaselineTokens, type BaselineWritten, type FailureImagePaths, type FailureImages, type NamedMasks, type UpdateMode,
} from './baseline.js';
export { clampRect, cropRgba, decodePng, encodePng, fillRect, isPng, padRgba, pngSize, type Rect, type RgbaImage, type Size } from '../png/png.js';
