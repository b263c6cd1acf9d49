import { EventEmitter } from 'node:events';
import { check } from '../src/api/validate.js';
import { endpoints } from '../src/api/schemas.js';
import { encodeQuery } from '../src/api/client.js';
const N = 200000;
function t(name: string, fn: () => unknown) { for (let i = 0; i < 10000; i++) fn(); const s = performance.now(); for (let i = 0; i < N; i++) fn(); console.log(name.padEnd(20), ((performance.now() - s) * 1000 / N).toFixed(3), 'µs'); }
const data = { content: '<html>' + 'x'.repeat(2100) + '</html>' };
t('check', () => check(endpoints.screenLayout.response, data));
t('timeoutSignal', () => AbortSignal.timeout(60000));
t('ac+timer', () => { const ac = new AbortController(); const x = setTimeout(() => ac.abort(), 60000); clearTimeout(x); });
t('ee+timer', () => { const e = new EventEmitter(); e.once('abort', () => {}); const x = setTimeout(() => e.emit('abort'), 60000); x.unref(); clearTimeout(x); });
t('expand', () => '/boxes/{boxId}/actions/screen-layout'.replace(/\{(\w+)\}/g, (_, k) => encodeURIComponent('box-1')));
t('query', () => encodeQuery(undefined));
t('json', () => JSON.parse(JSON.stringify(data)));
t('regex', () => /application\/json|\+json/.test('application/json'));
