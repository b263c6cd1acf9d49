// What a live viewer's input message becomes: the Box API action it asks for (src/server/http/liveView.ts
// runs it through the HTTP API's handler). Anything malformed is a short reason, answered on the socket.
import { endpoints, kKeyNames, type EndpointName } from '../../api/schemas.js';

const kKeyNameSet: ReadonlySet<string> = new Set(kKeyNames);

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= 100_000;
const point = (v: unknown): { x: number; y: number } | undefined => {
  const p = v as { x?: unknown; y?: unknown } | undefined;
  return p && num(p.x) && num(p.y) ? { x: p.x, y: p.y } : undefined;
};

/** A viewer's message → the endpoint and body of the action it asks for (coordinates in the box's action scale). */
export function actionOf(msg: Record<string, unknown>, scale: number): { name: EndpointName; body: Record<string, unknown> } | string {
  const at = (p: { x: number; y: number }) => ({ x: Math.round(p.x * scale * 100) / 100, y: Math.round(p.y * scale * 100) / 100 });
  const options = { screenshot: false };
  switch (msg.type) {
    case 'click': {
      const p = point(msg);
      if (!p) return 'a click needs x and y';
      const button = msg.button === 'right' || msg.button === 'middle' ? msg.button : 'left';
      return { name: 'click', body: { ...at(p), ...(button !== 'left' ? { button } : {}), ...(msg.double === true ? { double: true } : {}), options } };
    }
    case 'drag': {
      const path = Array.isArray(msg.path) ? msg.path.map(point) : [];
      if (path.length < 2 || path.length > 1000 || path.some((p) => !p)) return 'a drag needs a path of 2 to 1000 points';
      const total = num(msg.durationMs) ? Math.min(Math.max(Math.round(msg.durationMs), 50), 10_000) : 500;
      // At most 50 points, evenly spaced in the path, its ends kept.
      const step = Math.max(1, Math.ceil((path.length - 1) / 49));
      const kept = path.filter((_, i) => i % step === 0 || i === path.length - 1) as { x: number; y: number }[];
      if (kept.length === 2) return { name: 'drag', body: { start: at(kept[0]!), end: at(kept[1]!), duration: `${total}ms`, options } };
      return { name: 'drag', body: { path: kept.map(at), duration: `${Math.max(1, Math.round(total / (kept.length - 1)))}ms`, options } };
    }
    case 'scroll': {
      const p = point(msg);
      if (!p || !num(msg.deltaX) || !num(msg.deltaY)) return 'a scroll needs x, y, deltaX and deltaY';
      return { name: 'scroll', body: { ...at(p), scrollX: Math.round(msg.deltaX * scale), scrollY: Math.round(msg.deltaY * scale), options } };
    }
    case 'type':
      if (typeof msg.text !== 'string' || !msg.text || msg.text.length > 10_000) return 'type needs a text of 1 to 10000 characters';
      return { name: 'type', body: { text: msg.text, options } };
    case 'key': {
      const keys = Array.isArray(msg.keys) ? msg.keys : [];
      if (!keys.length || keys.length > 8 || keys.some((k) => typeof k !== 'string' || !kKeyNameSet.has(k))) return `key needs 1 to 8 key names of the API (${endpoints.pressKey.path})`;
      return { name: 'pressKey', body: { keys, ...(msg.combination === true ? { combination: true } : {}), options } };
    }
    case 'button': {
      if (typeof msg.button !== 'string') return 'button needs a name';
      return { name: 'pressButton', body: { buttons: [msg.button], options } };
    }
    default:
      return `unknown message type ${JSON.stringify(String(msg.type)).slice(0, 40)}`;
  }
}
