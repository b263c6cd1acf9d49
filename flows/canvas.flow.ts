// A TypeScript function flow: each box.* call is one recorded step.
import { flow } from 'boxflow';

export default flow('Sketch on the canvas', { tags: ['drag', 'ts'], box: 'linux' }, async ({ box, expect }) => {
  await box.openTab('http://127.0.0.1:4173/canvas');
  await expect(box).toShow('Strokes: 0');
  await box.drag({ path: [{ x: 60, y: 160 }, { x: 160, y: 220 }, { x: 260, y: 160 }, { x: 360, y: 220 }], interval: '30ms' });
  await expect(box).toShow('Strokes: 1');
  await box.swipe({ from: { x: 100, y: 300 }, to: { x: 500, y: 300 }, duration: '300ms' });
  await expect(box).toShow('Strokes: 2');
  await box.longPress({ desc: 'sketch pad' }, { duration: '1s' });
  await expect(box).toShow('Long press: yes');
  await box.tap({ desc: 'note' });
  await box.type({ text: 'drawn by boxflow', pressEnter: false });
  const page = await box.browser.page();
  const note = await page.locator('#note').inputValue();
  if (note !== 'drawn by boxflow') throw new Error(`note is "${note}"`);
  await expect(box).not.toShow('Strokes: 0');
  await box.screenshot('sketch');
});
