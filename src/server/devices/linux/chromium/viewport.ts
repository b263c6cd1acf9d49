// The screen of a Linux box as its pages see it: the viewport, the screen's size and its orientation,
// all set on each tab by one Emulation.setDeviceMetricsOverride (as Playwright and Puppeteer emulate
// a device). A rotation is seen by the page as a device's is: the viewport and the screen swap width
// and height, `screen.orientation` and the `orientation` media feature follow. The angles are those of
// a device whose natural orientation is portrait (GBOX's orientations are a phone's: portrait is 0°,
// landscapeLeft 90°, as Android's user_rotation counts them).
import { kOrientations, type Orientation, type Resolution } from '../../../../api/schemas.js';

export const isPortrait = (o: Orientation): boolean => o === 'portrait' || o === 'portraitUpsideDown';

/** CDP's Emulation.ScreenOrientation type of each orientation (the page's `screen.orientation.type`, hyphenated). */
const kScreenTypes = {
  portrait: 'portraitPrimary',
  landscapeLeft: 'landscapePrimary',
  portraitUpsideDown: 'portraitSecondary',
  landscapeRight: 'landscapeSecondary',
} as const satisfies Record<Orientation, string>;

/**
 * The orientation of a screen of `res`: the one it was last turned to while the screen has that
 * shape; otherwise (never turned, or resized since) `portrait` when it is taller than wide, else
 * `landscapeLeft`. A square screen keeps whatever it was turned to.
 */
export function screenOrientation(res: Resolution, turned: Orientation | undefined): Orientation {
  const fits = turned !== undefined && (res.width === res.height || isPortrait(turned) === res.height > res.width);
  if (fits) return turned;
  return res.height >= res.width ? 'portrait' : 'landscapeLeft';
}

/** `res` turned to `orientation`: its long side across for a landscape one, down for a portrait one. */
export function turnedResolution(res: Resolution, orientation: Orientation): Resolution {
  const long = Math.max(res.width, res.height);
  const short = Math.min(res.width, res.height);
  return isPortrait(orientation) ? { width: short, height: long } : { width: long, height: short };
}

/** The parameters of Emulation.setDeviceMetricsOverride for a screen of `res` in `orientation`. */
export function metricsOverride(res: Resolution, orientation: Orientation) {
  return {
    width: res.width,
    height: res.height,
    // The screen is the viewport (a box's screen is its browser's window, filled by the page).
    screenWidth: res.width,
    screenHeight: res.height,
    deviceScaleFactor: 1,
    mobile: false,
    screenOrientation: { type: kScreenTypes[orientation], angle: kOrientations.indexOf(orientation) * 90 },
  };
}
