import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseLayout, query, centre, nearMatches } from '../../src/layout/index.js';
import type { LayoutTree } from '../../src/layout/types.js';

const dir = fileURLToPath(new URL('../fixtures/android/', import.meta.url));
const read = (f: string) => readFileSync(dir + f, 'utf8');
const kFiles = {
  askamo: 'askamo_webview-chat_216nodes_bom_devtty-trailer.xml',
  resolver: 'android_open-with-resolver-dialog_samsung.xml',
  google: 'google-app_widget-customize-settings_radio-seekbar_compose.xml',
  hermes: 'hermes-mobile_settings_password-field.xml',
  homee: 'homee_welcome-login_two-windows_systemui.xml',
  nora: 'nora_compose-chat_cjk-text.xml',
  hyperos: 'hyperos-launcher_app-drawer_turkish_1200x2670.xml',
};
const trees = new Map<string, LayoutTree>();
const tree = (k: keyof typeof kFiles) => {
  if (!trees.has(k)) trees.set(k, parseLayout(read(kFiles[k])));
  return trees.get(k)!;
};

test('every real dump parses to all of its <node> elements under one hierarchy root', () => {
  const want = { askamo: 216, resolver: 69, google: 74, hermes: 72, homee: 50, nora: 32, hyperos: 75 };
  for (const [k, n] of Object.entries(want)) {
    const t = tree(k as keyof typeof kFiles);
    assert.equal(t.format, 'android', k);
    assert.equal(t.root.tag, 'hierarchy', k);
    assert.equal(t.nodes.length - 1, n, k);
    assert.ok(t.nodes.every((node, i) => node.order === i), `${k}: order is the document position`);
    assert.equal(t.hasGeometry, true);
  }
});

test('a capture with a BOM and the "UI hierchary dumped to: /dev/tty" trailer parses like a clean one', () => {
  const raw = read(kFiles.askamo);
  assert.equal(raw.charCodeAt(0), 0xfeff);
  assert.match(raw, /<\/hierarchy>UI hierchary dumped to: \/dev\/tty\s*$/);
  const clean = raw.slice(1).replace(/UI hierchary dumped to: \/dev\/tty\s*$/, '');
  const a = tree('askamo');
  const b = parseLayout(clean);
  assert.equal(a.nodes.length, b.nodes.length);
  assert.deepEqual(a.nodes.map((n) => n.text), b.nodes.map((n) => n.text));
  assert.deepEqual(a.screen, { width: 1080, height: 2178 });
  // The trailer is not text of any node.
  assert.equal(query(a, { textContains: 'dumped' }, { visibleOnly: false }).length, 0);
  // Forcing the format gives the same tree.
  assert.equal(parseLayout(raw, { format: 'android' }).nodes.length, a.nodes.length);
});

test('zero-size and off-screen nodes are invisible; queries skip them unless asked', () => {
  const t = tree('askamo');
  const zero = t.nodes.filter((n) => n.attributes.bounds === '[0,0][0,0]');
  assert.equal(zero.length, 8);
  assert.ok(zero.every((n) => !n.visible));
  assert.deepEqual(query(t, 'Chat History'), []);
  assert.equal(query(t, 'Chat History', { visibleOnly: false }).length, 1);
  // A zero-height row (the chat scrolled away) is invisible too.
  assert.deepEqual(query(t, 'What color is the sky?'), []);
  assert.equal(query(t, { textContains: 'color is the sky' }, { visibleOnly: false }).length, 1);
});

test('"Just once" in the resolver dialog: by text, regex, id suffix, desc, class and xpath', () => {
  const t = tree('resolver');
  const [once] = query(t, 'Just once');
  assert.ok(once);
  assert.equal(once.id, 'android:id/button_once');
  assert.deepEqual(once.bounds, { left: 72, top: 2124, right: 538, bottom: 2178 });
  assert.deepEqual(centre(once), { x: 305, y: 2151 });
  assert.equal(once.state.enabled, false);
  assert.deepEqual(query(t, { text: '/^just ONCE$/i' }), [once]);
  assert.deepEqual(query(t, { id: 'button_once' }), [once]);
  assert.deepEqual(query(t, { id: 'android:id/button_once' }), [once]);
  assert.deepEqual(query(t, { id: 'once' }), [], 'an id suffix must be a whole segment');
  assert.deepEqual(query(t, { desc: 'Use selected app just once' }), [once]);
  assert.deepEqual(query(t, { class: 'Button', text: 'Just once' }), [once]);
  assert.deepEqual(query(t, { class: 'android.widget.Button' }).map((n) => n.text), ['Just once', 'Always']);
  assert.deepEqual(query(t, { xpath: "//node[@resource-id='android:id/button_once']" }), [once]);
  assert.deepEqual(query(t, { xpath: "//android.widget.Button[@text='Just once']" }), [once]);
  assert.deepEqual(query(t, { xpath: "//node[@text='Always']/@text" }).map((n) => n.text), ['Always']);
  // Both buttons are disabled in this capture: a state key tells them apart from enabled ones.
  assert.deepEqual(query(t, { text: 'Just once', enabled: true }), []);
  assert.deepEqual(query(t, { class: 'Button', enabled: false, clickable: true }).length, 2);
});

test('index counts top-to-bottom then left-to-right; relative keys pick by geometry', () => {
  const t = tree('resolver');
  const labels = query(t, { id: 'text1' });
  assert.deepEqual(labels.map((n) => n.text), ['Messages', 'Messages', 'Calendar', 'Android Switch', 'Backup', 'Backup', 'Camera', 'Device care']);
  assert.deepEqual(query(t, { text: 'Backup', index: 1 }).map((n) => n.bounds!.left), [356]);
  assert.deepEqual(query(t, { text: 'Backup', index: 2 }), []);
  // Right of the first "Messages": the second one is nearest and on the same row.
  assert.equal(query(t, { id: 'text1', rightOf: { text: 'Messages', index: 0 } })[0]!.bounds!.left, 332);
  // Below "Calendar" and aligned with it: "Camera".
  assert.equal(query(t, { id: 'text1', below: 'Calendar' })[0]!.text, 'Camera');
  assert.equal(query(t, { class: 'TextView', above: 'Camera' })[0]!.text, 'Calendar');
  // Several positional keys: all must hold; the first one written orders the matches.
  assert.deepEqual(query(t, { id: 'text1', leftOf: 'Device care', below: 'Android Switch' }).map((n) => n.text), ['Camera', 'Backup', 'Backup']);
  assert.deepEqual(query(t, { id: 'text1', below: 'Android Switch', leftOf: 'Device care' }).map((n) => n.bounds!.left), [109, 356, 599]);
  assert.deepEqual(query(t, { text: 'Open with', below: 'Just once' }), []);
  // childOf: descendants of the button bar only.
  assert.deepEqual(query(t, { childOf: { id: 'button_bar' }, clickable: true }).map((n) => n.text), ['Just once', 'Always']);
  assert.deepEqual(query(t, { childOf: { id: 'button_bar' }, text: 'Camera' }), []);
});

test('resolver grid: containsChild, containsDescendants, size, traits and a negative index on a real dump', () => {
  const t = tree('resolver');
  const cell = (text: string) => query(t, { clickable: true, containsDescendants: [text] });
  // Each grid cell is a clickable LinearLayout holding an icon and, one level down, its label.
  assert.deepEqual(cell('Camera').map((n) => n.bounds), [{ left: 539, top: 1705, right: 786, bottom: 2036 }]);
  assert.deepEqual(query(t, { clickable: true, containsDescendants: ['Backup', { id: 'icon' }] }).map((n) => n.bounds!.left), [45, 292]);
  assert.deepEqual(query(t, { clickable: true, containsDescendants: ['Backup', 'Camera'] }), [], 'every listed selector must match inside the same node');
  assert.deepEqual(query(t, { clickable: true, containsChild: 'Camera' }), [], 'the label is a grandchild of the cell, not a child');
  assert.deepEqual(query(t, { containsChild: 'Camera' }).map((n) => n.bounds), [{ left: 575, top: 1921, right: 749, bottom: 2012 }]);
  assert.deepEqual(query(t, { clickable: true, containsChild: { id: 'icon' } }).length, 12);
  // Icons: 168×168 in the first two rows, cut to 168×118 by the screen edge in the third.
  assert.equal(query(t, { id: 'icon', size: { width: 168, height: 168 } }).length, 8);
  assert.equal(query(t, { id: 'icon', size: { height: 120, tolerance: 2 } }).length, 4);
  assert.equal(query(t, { id: 'icon', size: { height: 120, tolerance: 1 } }).length, 0);
  assert.equal(query(t, { id: 'icon', traits: ['square'] }).length, 8);
  assert.deepEqual(query(t, { id: 'text1', traits: ['text', 'square'] }), []);
  assert.deepEqual(query(t, { class: 'Button', traits: ['text'] }).map((n) => n.text), ['Just once', 'Always']);
  assert.deepEqual(query(t, { id: 'icon', traits: ['text'] }), []);
  // -1 is the last match in reading order; the hidden third-row labels do not count.
  assert.deepEqual(query(t, { id: 'text1', index: -1 }).map((n) => n.text), ['Device care']);
  assert.deepEqual(query(t, { text: 'Backup', index: -2 }).map((n) => n.bounds!.left), [109]);
  assert.deepEqual(query(t, { text: 'Backup', index: -3 }), []);
  assert.throws(() => query(t, { css: 'Button' }), (e: unknown) => e instanceof Error && /css selectors apply to HTML layouts only; this layout is android/.test(e.message));
});

test('askamo: long-text finds the long chat messages, text the short ones too', () => {
  const t = tree('askamo');
  assert.equal(query(t, { traits: ['long-text'] }, { visibleOnly: false }).length, 6);
  assert.ok(query(t, { traits: ['long-text'] }, { visibleOnly: false }).every((n) => n.text.length > 200));
  assert.ok(query(t, { traits: ['text'] }, { visibleOnly: false }).length > 6);
  const hermes = tree('hermes');
  assert.deepEqual(query(hermes, { traits: ['long-text'] }), [], 'a 168-character text is not long');
});

test('hermes: the password field is found by its password attribute and shows no secret', () => {
  const t = tree('hermes');
  const [field] = query(t, { xpath: "//node[@password='true']" });
  assert.ok(field);
  assert.equal(field.id, 'gateway-api-key-input');
  assert.equal(field.tag, 'android.widget.EditText');
  assert.match(field.text, /^•+$/);
  assert.deepEqual(query(t, { id: 'gateway-api-key-input' }), [field]);
  // The hint is the third field a text selector reads.
  assert.deepEqual(query(t, 'sk-...'), [field]);
  assert.deepEqual(query(t, { class: 'EditText', below: 'Direct Link API Key' })[0], field);
  // The non-breaking hyphen (U+2011) is matched as written, not folded to "-".
  assert.equal(query(t, { text: 'Find Mac on USB or Wi\u2011Fi', class: 'TextView' }).length, 1);
  assert.equal(query(t, { text: 'Find Mac on USB or Wi-Fi', class: 'TextView' }).length, 0);
});

test('google app: the four theme radio buttons, none checked in this capture', () => {
  const t = tree('google');
  assert.deepEqual(t.screen, { width: 1344, height: 2992 });
  const radios = query(t, { class: 'RadioButton' });
  assert.equal(radios.length, 4);
  assert.deepEqual(radios.map((n) => n.bounds!.left), [150, 453, 756, 1059]);
  assert.equal(query(t, { class: 'RadioButton', checked: false }).length, 4);
  assert.deepEqual(query(t, { class: 'RadioButton', checked: true }), []);
  // Each label overlaps its radio button's box, so the first text below the row is "Hue".
  assert.equal(query(t, { class: 'TextView', below: { class: 'RadioButton', index: 2 } })[0]!.text, 'Hue');
  assert.equal(query(t, { class: 'TextView', rightOf: { class: 'RadioButton', index: 1 } })[0]!.text, 'Dark');
  assert.deepEqual(query(t, { text: 'Reset' })[0]!.state.enabled, false);
});

test('a checked node is found by checked: true (same dump, one radio ticked)', () => {
  const xml = read(kFiles.google).replace(/(class="android\.widget\.RadioButton"[^>]*?)checked="false"/, '$1checked="true"');
  const t = parseLayout(xml);
  const [checked] = query(t, { class: 'RadioButton', checked: true });
  assert.ok(checked);
  assert.equal(checked.bounds!.left, 150);
  assert.equal(query(t, { class: 'RadioButton', checked: false }).length, 3);
});

test('hyperos: Turkish labels and the drawer setting icon', () => {
  const t = tree('hyperos');
  assert.deepEqual(t.screen, { width: 1200, height: 2670 });
  const [ayarlar] = query(t, 'Ayarlar');
  assert.ok(ayarlar);
  assert.deepEqual(ayarlar.bounds, { left: 881, top: 1247, right: 1163, bottom: 1541 });
  assert.equal(query(t, 'Haberleşme').length, 1);
  assert.equal(query(t, { desc: 'unchecked, Eğlence' }).length, 1);
  assert.equal(query(t, { textContains: 'çekmecesi', clickable: true })[0]!.id, 'com.miui.home:id/all_apps_setting_button');
  // Same-row neighbour: "Authenticator" (the second of two) sits left of "Ayarlar".
  assert.equal(query(t, { leftOf: 'Ayarlar', class: 'TextView' })[0]!.bounds!.left, 600);
});

test('nora: CJK text, `&#10;` newlines in attributes and the focused EditText', () => {
  const t = tree('nora');
  assert.equal(query(t, '美国首都在哪里').length, 1);
  assert.equal(query(t, '中国首都在哪里hello').length, 1);
  const multi = query(t, { textContains: '华盛顿特区' });
  assert.equal(multi.length, 2);
  assert.ok(multi[0]!.text.includes('\n\n'), 'the entity decodes to a newline');
  // Whitespace (the newlines) collapses for exact matching.
  assert.equal(query(t, { text: '/一下。 美国的首都/' }).length, 2);
  const [edit] = query(t, { class: 'EditText', focused: true });
  assert.equal(edit!.text, 'h');
  assert.equal(query(t, { desc: 'Send', rightOf: { class: 'EditText' } }).length, 1);
});

test('homee: two top-level windows, U+202F in the clock, and CRLF line ends', () => {
  const raw = read(kFiles.homee);
  assert.ok(raw.includes('\r\n'));
  const t = tree('homee');
  assert.equal(t.root.children.length, 2);
  assert.deepEqual(t.root.children.map((w) => w.attributes.package), ['com.android.systemui', 'de.vorwerk.homee.homee']);
  assert.deepEqual(t.screen, { width: 1080, height: 2400 });
  const [clock] = query(t, '6:44 PM');
  assert.ok(clock, 'an ASCII space matches the narrow no-break space');
  assert.equal(clock.desc, '6:44\u202fPM');
  assert.equal(clock.id, 'com.android.systemui:id/clock');
  const [login] = query(t, 'Log In');
  assert.equal(login!.tag, 'android.widget.Button');
  assert.ok(login!.attributes['visible-to-user'] === 'true');
  assert.equal(query(t, { class: 'Button', below: 'Log In' })[0]!.desc, 'I am new here');
  assert.equal(query(t, { childOf: { id: 'status_bar' }, desc: '/^Battery/' }).length, 1);
});

test('visible-to-user="false" and displayed="false" hide a node', () => {
  const xml = read(kFiles.homee).replace('content-desc="Log In" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" visible-to-user="true"', (m) => m.replace('visible-to-user="true"', 'visible-to-user="false"'));
  assert.notEqual(xml, read(kFiles.homee));
  assert.deepEqual(query(parseLayout(xml), 'Log In'), []);
  const xml2 = read(kFiles.resolver).replace('text="Always"', 'text="Always" displayed="false"');
  assert.deepEqual(query(parseLayout(xml2), 'Always'), []);
  assert.equal(query(parseLayout(xml2), 'Always', { visibleOnly: false }).length, 1);
});

test('near matches for a failing selector rank typos and hidden exact matches first', () => {
  const t = tree('resolver');
  assert.deepEqual(query(t, 'Just Onse'), []);
  const near = nearMatches(t, 'Just Onse');
  assert.equal(near[0]!.text, 'Just once');
  const hidden = nearMatches(t, 'Maps');
  assert.equal(hidden[0]!.text, 'Maps');
  assert.equal(hidden[0]!.visible, false);
  assert.equal(nearMatches(t, { id: 'buton_always' })[0]!.id, 'android:id/button_always');
  assert.ok(nearMatches(t, 'zzzzzzzz').length === 0);
  assert.ok(nearMatches(tree('askamo'), { text: 'Setings' }, 2).length <= 2);
});
