// The `role`/`name`, `labelText` and `placeholder` selector keys find what Playwright's getByRole,
// getByLabel and getByPlaceholder find (exact: true): each page is laid out by a real Chromium,
// captured with DOMSnapshot as the runner does, and the elements our query finds are the ones
// Playwright's own engine finds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { query, type SelectorObject } from '../../src/layout/index.js';
import { useSnapshotPage } from '../support/snapshotPage.js';

const shots = useSnapshotPage('boxflow-roles-');
const snapshot = () => shots.snapshot();

const kPage = `<!doctype html><html><body>
<header data-k="banner">Shop</header>
<h1 data-k="h1">Sign in</h1>
<h2 data-k="h2">Your   <em>account</em></h2>
<form>
  <label for="email">Email</label> <input data-k="email" id="email" placeholder="you@example.com">
  <label>Password <input data-k="password" type="password" placeholder="secret"></label>
  <span id="q-label">Search terms</span> <input data-k="search" type="search" aria-labelledby="q-label">
  <input data-k="phone" aria-label="Phone number" placeholder="+33 ...">
  <input data-k="titled" title="Nickname">
  <textarea data-k="notes" placeholder="Notes"></textarea>
  <label><input data-k="remember" type="checkbox"> Remember me</label>
  <input data-k="news" type="radio" id="news"><label for="news">Newsletter</label>
  <label for="country">Country</label><select data-k="country" id="country"><option>France</option><option>Spain</option></select>
  <button data-k="signin">Sign in</button>
  <button data-k="close" aria-label="Close dialog">×</button>
  <button data-k="later">Sign in <span hidden>now</span> later</button>
  <input data-k="submit" type="submit" value="Send">
  <input data-k="reset" type="reset">
</form>
<a data-k="home" href="/"><img alt="Home" src="data:,"> page</a>
<a data-k="nohref">Not a link</a>
<div data-k="divbutton" role="button" tabindex="0">Custom   action</div>
<div aria-hidden="true"><button data-k="hiddenbutton">Sign in</button></div>
<ul data-k="list"><li data-k="item">One</li></ul>
<img data-k="logo" alt="Logo" src="data:,">
<nav data-k="nav" aria-label="Main"><a data-k="about" href="/about" title="About us">About</a></nav>
</body></html>`;

const kCases: { sel: SelectorObject; pw: (p: Page) => Locator }[] = [
  { sel: { role: 'button', name: 'Sign in' }, pw: (p) => p.getByRole('button', { name: 'Sign in', exact: true }) },
  { sel: { role: 'button', name: 'Sign in later' }, pw: (p) => p.getByRole('button', { name: 'Sign in later', exact: true }) },
  { sel: { role: 'button', name: 'Close dialog' }, pw: (p) => p.getByRole('button', { name: 'Close dialog', exact: true }) },
  { sel: { role: 'button', name: 'Send' }, pw: (p) => p.getByRole('button', { name: 'Send', exact: true }) },
  { sel: { role: 'button', name: 'Reset' }, pw: (p) => p.getByRole('button', { name: 'Reset', exact: true }) },
  { sel: { role: 'button', name: 'Custom action' }, pw: (p) => p.getByRole('button', { name: 'Custom action', exact: true }) },
  { sel: { role: 'button' }, pw: (p) => p.getByRole('button') },
  { sel: { role: 'heading', name: 'Sign in' }, pw: (p) => p.getByRole('heading', { name: 'Sign in', exact: true }) },
  { sel: { role: 'heading', name: 'Your account' }, pw: (p) => p.getByRole('heading', { name: 'Your account', exact: true }) },
  { sel: { role: 'textbox', name: 'Email' }, pw: (p) => p.getByRole('textbox', { name: 'Email', exact: true }) },
  { sel: { role: 'textbox', name: 'Password' }, pw: (p) => p.getByRole('textbox', { name: 'Password', exact: true }) },
  { sel: { role: 'textbox', name: 'Phone number' }, pw: (p) => p.getByRole('textbox', { name: 'Phone number', exact: true }) },
  { sel: { role: 'textbox', name: 'Nickname' }, pw: (p) => p.getByRole('textbox', { name: 'Nickname', exact: true }) },
  { sel: { role: 'textbox', name: 'Notes' }, pw: (p) => p.getByRole('textbox', { name: 'Notes', exact: true }) },
  { sel: { role: 'textbox' }, pw: (p) => p.getByRole('textbox') },
  { sel: { role: 'searchbox', name: 'Search terms' }, pw: (p) => p.getByRole('searchbox', { name: 'Search terms', exact: true }) },
  { sel: { role: 'checkbox', name: 'Remember me' }, pw: (p) => p.getByRole('checkbox', { name: 'Remember me', exact: true }) },
  { sel: { role: 'radio', name: 'Newsletter' }, pw: (p) => p.getByRole('radio', { name: 'Newsletter', exact: true }) },
  { sel: { role: 'combobox', name: 'Country' }, pw: (p) => p.getByRole('combobox', { name: 'Country', exact: true }) },
  { sel: { role: 'link', name: 'Home page' }, pw: (p) => p.getByRole('link', { name: 'Home page', exact: true }) },
  { sel: { role: 'link', name: 'About' }, pw: (p) => p.getByRole('link', { name: 'About', exact: true }) },
  { sel: { role: 'link' }, pw: (p) => p.getByRole('link') },
  { sel: { role: 'img', name: 'Logo' }, pw: (p) => p.getByRole('img', { name: 'Logo', exact: true }) },
  { sel: { role: 'navigation', name: 'Main' }, pw: (p) => p.getByRole('navigation', { name: 'Main', exact: true }) },
  { sel: { role: 'banner' }, pw: (p) => p.getByRole('banner') },
  { sel: { role: 'list' }, pw: (p) => p.getByRole('list') },
  { sel: { role: 'listitem' }, pw: (p) => p.getByRole('listitem') },
  { sel: { labelText: 'Email' }, pw: (p) => p.getByLabel('Email', { exact: true }) },
  { sel: { labelText: 'Password' }, pw: (p) => p.getByLabel('Password', { exact: true }) },
  { sel: { labelText: 'Search terms' }, pw: (p) => p.getByLabel('Search terms', { exact: true }) },
  { sel: { labelText: 'Phone number' }, pw: (p) => p.getByLabel('Phone number', { exact: true }) },
  { sel: { labelText: 'Remember me' }, pw: (p) => p.getByLabel('Remember me', { exact: true }) },
  { sel: { labelText: 'Country' }, pw: (p) => p.getByLabel('Country', { exact: true }) },
  { sel: { labelText: 'Close dialog' }, pw: (p) => p.getByLabel('Close dialog', { exact: true }) },
  { sel: { placeholder: 'you@example.com' }, pw: (p) => p.getByPlaceholder('you@example.com', { exact: true }) },
  { sel: { placeholder: 'Notes' }, pw: (p) => p.getByPlaceholder('Notes', { exact: true }) },
  { sel: { placeholder: 'secret' }, pw: (p) => p.getByPlaceholder('secret', { exact: true }) },
];

test('role and name, label and placeholder find on a real page what Playwright\'s getByRole, getByLabel and getByPlaceholder find', async () => {
  await shots.page.setContent(kPage);
  const tree = await snapshot();
  const mismatches: string[] = [];
  for (const c of kCases) {
    const ours = query(tree, c.sel).map((n) => n.attributes['data-k'] ?? n.tag).sort();
    const theirs = (await c.pw(shots.page).evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.k ?? e.tagName.toLowerCase()))).sort();
    if (JSON.stringify(ours) !== JSON.stringify(theirs)) mismatches.push(`${JSON.stringify(c.sel)}: ours ${JSON.stringify(ours)}, Playwright's ${JSON.stringify(theirs)}`);
    assert.ok(theirs.length > 0, `${JSON.stringify(c.sel)} finds something in Playwright`);
  }
  assert.deepEqual(mismatches, []);
});
