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
    { pressKey: 'home' },
    { assertVisible: { text: 'Item 1' }, timeout: '3s' },
    { pressKey: { keys: ['alt', 'arrowLeft'], combination: true }, label: 'Back to the home page' },
    { assertVisible: 'Boxflow demo shop' },
  ],
});
