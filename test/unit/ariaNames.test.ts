// Roles and accessible names as the `role`/`name`, `label` and `placeholder` selector keys see them
// (src/layout/aria.ts): HTML's implicit roles and the accessible name computation for the common
// cases, as Playwright's getByRole/getByLabel/getByPlaceholder have them; Android's class, content-desc
// and hint; and the mistakes a flow can make with them, refused at its file:line:col.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BoxflowError } from '../../src/errors.js';
import { normalizeStep, parseFlowYaml } from '../../src/flow/index.js';
import { flowLoadError } from '../support/flowErrors.js';
import { stepLabel } from '../../src/runner/label.js';
import { accessibleName, roleOf } from '../../src/layout/aria.js';
import { parseLayout, query, type LayoutTree } from '../../src/layout/index.js';

/** `[data-k, role, name]` of every element marked with data-k. */
function roles(html: string): [string, string | undefined, string][] {
  const t = parseLayout(`<html><body>${html}</body></html>`);
  return t.nodes.filter((n) => n.attributes['data-k']).map((n) => [n.attributes['data-k']!, roleOf(t, n), accessibleName(t, n)]);
}

test('implicit roles of HTML elements, and an explicit role before them', () => {
  assert.deepEqual(
    roles(`<button data-k=1>Go</button><a data-k=2 href="/x">Home</a><a data-k=3>anchor</a>
<input data-k=4><input data-k=5 type=checkbox><input data-k=6 type=radio><input data-k=7 type=submit><input data-k=8 type=range>
<input data-k=9 type=number><input data-k=10 type=search><input data-k=11 type=email list=l><datalist id=l></datalist><input data-k=12 type=password>
<select data-k=13><option>a</option></select><select data-k=14 multiple></select><textarea data-k=15></textarea><h3 data-k=16>Head</h3>
<img data-k=17 alt="" src=x.png><img data-k=18 alt="Logo" src=x.png><header data-k=19>top</header><article><header data-k=20>in</header></article>
<section data-k=21>s</section><section data-k=22 aria-label=Main>s</section><div data-k=23 role="button">div</div><div data-k=24 role="foo tab">t</div>
<ul data-k=25><li data-k=26>item</li></ul><input data-k=27 type=hidden>`),
    [
      ['1', 'button', 'Go'],
      ['2', 'link', 'Home'],
      ['3', undefined, ''],
      ['4', 'textbox', ''],
      ['5', 'checkbox', ''],
      ['6', 'radio', ''],
      ['7', 'button', 'Submit'],
      ['8', 'slider', ''],
      ['9', 'spinbutton', ''],
      ['10', 'searchbox', ''],
      ['11', 'combobox', ''],
      ['12', 'textbox', ''],
      ['13', 'combobox', ''],
      ['14', 'listbox', ''],
      ['15', 'textbox', ''],
      ['16', 'heading', 'Head'],
      ['17', 'presentation', ''],
      ['18', 'img', 'Logo'],
      ['19', 'banner', ''],
      ['20', undefined, ''],
      ['21', undefined, ''],
      ['22', 'region', 'Main'],
      ['23', 'button', 'div'],
      ['24', 'tab', 't'],
      ['25', 'list', ''],
      ['26', 'listitem', ''],
      ['27', undefined, ''],
    ],
  );
});

test('accessible names: aria-labelledby, aria-label, <label>s, title and placeholder, alt, then the content', () => {
  assert.deepEqual(
    roles(`<span id=a>First</span><span id=b hidden>Second</span>
<button data-k=1 aria-labelledby="a b" aria-label="ignored">x</button>
<button data-k=2 aria-label="Close dialog">×</button>
<label for=e>E-mail</label><input data-k=3 id=e placeholder="you@example.com" title="t">
<label>Password <input data-k=4 type=password></label>
<input data-k=5 title="Search the site" placeholder="Search">
<input data-k=6 placeholder="Only a placeholder">
<a data-k=7 href=/><img alt="Home" src=h.png> page</a>
<button data-k=8>Save <span hidden>secret</span><span aria-hidden="true">★</span></button>
<button data-k=9>  Sign
   in  </button>
<input data-k=10 type=submit value="Send it">
<label>Remember <input data-k=11 type=checkbox> me</label>
<button data-k=12 title="Only a title"></button>
<label for=c>Country</label><select data-k=13 id=c><option>France</option><option selected>Spain</option></select>
<label>Amount <input data-k=14 value="5"> EUR</label>`),
    [
      ['1', 'button', 'First Second'],
      ['2', 'button', 'Close dialog'],
      ['3', 'textbox', 'E-mail'],
      ['4', 'textbox', 'Password'],
      ['5', 'textbox', 'Search the site'],
      ['6', 'textbox', 'Only a placeholder'],
      ['7', 'link', 'Home page'],
      ['8', 'button', 'Save'],
      ['9', 'button', 'Sign in'],
      ['10', 'button', 'Send it'],
      ['11', 'checkbox', 'Remember me'],
      ['12', 'button', 'Only a title'],
      ['13', 'combobox', 'Country'],
      ['14', 'textbox', 'Amount EUR'],
    ],
  );
});

test('the selector keys: role with an exact or /regex/ name, label, placeholder; aria-hidden elements have no role', () => {
  const t = parseLayout(`<h1>Sign in</h1><button>Sign in</button><button>Sign in later</button><div aria-hidden="true"><button>Sign in</button></div>
<label for=e>Email</label><input id=e placeholder="you@example.com"><input id=q aria-label="Query"><span id=n>Name</span><input id=nm aria-labelledby=n>`);
  const tags = (sel: object) => query(t, sel as never).map((n) => n.id || n.tag);
  assert.deepEqual(tags({ role: 'button', name: 'Sign in' }), ['button']);
  assert.deepEqual(tags({ role: 'button', name: '/^sign in/i' }), ['button', 'button']);
  assert.deepEqual(tags({ role: 'heading' }), ['h1']);
  // Hidden from assistive technology: no role, even to a query that looks at hidden elements.
  assert.equal(query(t, { role: 'button' }, { visibleOnly: false }).length, 2);
  assert.deepEqual(tags({ labelText: 'Email' }), ['e']);
  assert.deepEqual(tags({ labelText: 'Query' }), ['q']);
  assert.deepEqual(tags({ labelText: 'Name' }), ['nm']);
  assert.deepEqual(tags({ placeholder: 'you@example.com' }), ['e']);
  assert.deepEqual(tags({ placeholder: '/@example/' }), ['e']);
  // A typo or a name without its role: refused with what to write.
  assert.throws(() => query(t, { role: 'buton' } as never), (e) => BoxflowError.is(e) && e.code === 'INVALID_ARGUMENT' && /ARIA role/.test(e.message));
  assert.throws(() => query(t, { name: 'Sign in' }), (e) => BoxflowError.is(e) && e.code === 'INVALID_ARGUMENT' && /give the role too/.test(e.message));
});

const kAndroid = `<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">
<node index="0" text="" resource-id="" class="android.widget.FrameLayout" package="app" content-desc="" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" checked="false" bounds="[0,0][1080,2000]">
<node index="0" text="Sign in" resource-id="app:id/go" class="android.widget.Button" package="app" content-desc="" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" checked="false" bounds="[0,0][500,100]" />
<node index="1" text="" resource-id="app:id/close" class="android.widget.ImageButton" package="app" content-desc="Close" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" checked="false" bounds="[500,0][600,100]" />
<node index="2" text="ann@example.com" hint="Email" resource-id="app:id/email" class="android.widget.EditText" package="app" content-desc="" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" checked="false" bounds="[0,100][1080,200]" />
<node index="3" text="Remember me" resource-id="app:id/remember" class="android.widget.CheckBox" package="app" content-desc="" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" checked="false" bounds="[0,200][1080,300]" />
<node index="4" text="Welcome" resource-id="" class="android.widget.TextView" package="app" content-desc="" clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" checked="false" bounds="[0,300][1080,400]" />
</node></hierarchy>`;

test('Android: the role from the class where it is obvious, the name from content-desc or the text (a field: its hint), the placeholder is the hint, and no label', () => {
  const t: LayoutTree = parseLayout(kAndroid);
  const ids = (sel: object) => query(t, sel as never).map((n) => n.id.slice(n.id.indexOf('/') + 1) || n.text);
  assert.deepEqual(ids({ role: 'button', name: 'Sign in' }), ['go']);
  assert.deepEqual(ids({ role: 'button', name: 'Close' }), ['close']);
  assert.deepEqual(ids({ role: 'textbox', name: 'Email' }), ['email']);
  assert.deepEqual(ids({ role: 'checkbox', name: 'Remember me' }), ['remember']);
  assert.deepEqual(ids({ placeholder: 'Email' }), ['email']);
  assert.deepEqual(ids({ role: 'button' }), ['go', 'close']);
  assert.equal(roleOf(t, query(t, 'Welcome')[0]!), undefined);
  assert.throws(() => query(t, { labelText: 'Email' }), (e) => BoxflowError.is(e) && e.code === 'STEP_INVALID' && /Android layout has none/.test(e.message) && /placeholder \(the hint\)/.test(e.message));
});

function loadError(step: string): string {
  const { at, message } = flowLoadError(`steps:\n${step}\n`);
  return `${at} ${message.replace(/^[^ ]+ /, '')}`;
}

test('in a flow file: the keys load; a name without a role, an unknown role and a label on selectOption are found at load time, at their place', () => {
  const flow = parseFlowYaml(
    'steps:\n  - tap: { role: button, name: Sign in }\n  - fill: { labelText: Email, value: a@b.c }\n  - tap: { placeholder: "you@example.com" }\n  - selectOption: { role: combobox, name: Country, label: Spain }\n',
    '/flows/k.flow.yaml',
  );
  assert.deepEqual(
    flow.steps.map((s) => (s as { target?: { selector: unknown }; selector?: unknown }).target?.selector ?? (s as { selector?: unknown }).selector),
    [{ role: 'button', name: 'Sign in' }, { labelText: 'Email' }, { placeholder: 'you@example.com' }, { role: 'combobox', name: 'Country' }],
  );
  assert.equal(loadError('  - tap: { name: Sign in }'), '2:12 steps[0].tap.name: "name" is the accessible name of a role: give the role too, e.g. { role: button, name: "Sign in" }');
  assert.equal(loadError('  - tap: { role: buton, name: Go }'), '2:18 steps[0].tap.role: "buton" is not an ARIA role (button, link, textbox, checkbox, heading, ...) (did you mean "button"?)');
});

test('step titles read as the page does: button "Sign in", label "Email", placeholder "…"', () => {
  const label = (raw: Record<string, unknown>) => stepLabel(normalizeStep(raw, { file: '/p/a.flow.yaml', line: 1, column: 1 }));
  assert.equal(label({ tap: { role: 'button', name: 'Sign in' } }), 'tap button "Sign in"');
  assert.equal(label({ assertVisible: { role: 'heading', name: '/^welcome/i' } }), 'assertVisible heading /^welcome/i');
  assert.equal(label({ tap: { role: 'button', name: 'Sign in', index: 1 } }), 'tap button "Sign in" [1]');
  assert.equal(label({ tap: { role: 'textbox' } }), 'tap role textbox');
  assert.equal(label({ fill: { labelText: 'Email', value: 'a' } }), 'fill label "Email" "a"');
  assert.equal(label({ tap: { placeholder: 'you@example.com' } }), 'tap placeholder "you@example.com"');
});
