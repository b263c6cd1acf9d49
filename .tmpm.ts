import { readFileSync } from 'node:fs';
import { decodePng, padRgba } from './src/visual/png.js';
import { compareRgba } from './src/visual/compare.js';
const A = decodePng(readFileSync('test/fixtures/visual/base.png')), B = decodePng(readFileSync('test/fixtures/visual/size.png'));
console.log('decoded');
const P = padRgba(B, 360, 640); console.log('padded', P.data.length);
const t0 = performance.now();
const r = compareRgba(A, B, { maxDiffPixelRatio: 1 });
console.log(performance.now() - t0, r.diffPixels, r.message);
