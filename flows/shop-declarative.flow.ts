// The declarative TypeScript form: the same step shapes as YAML.
import { flow } from 'boxflow';

export default flow({
  name: 'Navigate the shop with keys',
  tags: ['keys', 'ts'],
  steps: [
    { openTab: 'http://127.0.0.1:4173/' },
    { tap: { text: 'List' } },
    { assertVisible: { text: 'Item 1' } },
    { pressKey: 'end' },
    { assertVisible: { text: 'Item 120' } },
    { pressKey: { keys: ['control', 'home'], combination: true }, label: 'Back to the top' },
    { assertVisible: { text: 'Item 1' }, timeout: '3s' },
    { assertNotVisible: { text: 'Item 120' } },
  ],
});
