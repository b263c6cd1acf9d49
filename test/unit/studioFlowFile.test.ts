// boxflow studio adds steps to a flow file in the file's own style: the rest of the file byte for
// byte (comments included), the new item like the items already there (flow or block maps, padding
// inside braces, quoting, indentation), boxflow YAML and Maestro alike. A step goes where it is asked
// to (after the step that ran last, or the one selected), and steps move and go with their comments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseAllDocuments, parseDocument } from 'yaml';
import { appendStep, deleteStep, dialectOf, insertStep, moveStep, newFlowText, stepItems } from '../../src/studio/flowFile.js';
import { parseFlowYaml, parseMaestroYaml } from '../../src/flow/index.js';

const read = (p: string) => readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8');

test('a boxflow flow: the step goes after the last one, the file before it unchanged, in its { } style with padding', () => {
  const text = read('flows/sign-in.flow.yaml');
  const out = appendStep(text, 'boxflow', { tap: { id: 'save' } });
  assert.equal(out, `${text}  - tap: { id: save }\n`);
  const flow = parseFlowYaml(out, '/x/sign-in.flow.yaml');
  assert.deepEqual(flow.steps.at(-1)!.kind, 'tap');
});

test('comments are kept: a comment on the last step, between steps and after the list', () => {
  const text = '# top\nname: x   # the name\nsteps:\n  # first\n  - openTab: http://a/   # the app\n\n# after the list\nonFinish: [closeBrowser]\n';
  const out = appendStep(text, 'boxflow', { assertVisible: 'Menu: Laptops' });
  assert.equal(out, '# top\nname: x   # the name\nsteps:\n  # first\n  - openTab: http://a/   # the app\n  - assertVisible: "Menu: Laptops"\n\n# after the list\nonFinish: [closeBrowser]\n');
});

test('block-style items get a block map, tight braces stay tight, quoted arguments stay quoted, a 4-space file keeps 4 spaces', () => {
  const block = 'steps:\n    - tap:\n          id: a\n    - assertVisible:\n          text: b\n';
  const out = appendStep(block, 'boxflow', { tap: { id: 'c' } });
  assert.equal(out, `${block}    - tap:\n          id: c\n`);
  const tight = 'steps:\n  - tap: {css: "#a"}\n  - tap: {id: b}\n';
  assert.equal(appendStep(tight, 'boxflow', { tap: { id: 'c' } }), `${tight}  - tap: {id: c}\n`);
  const quoted = 'steps:\n  - tap: "A"\n  - assertVisible: "B"\n';
  assert.equal(appendStep(quoted, 'boxflow', { tap: 'C' }), `${quoted}  - tap: "C"\n`);
  const unindented = 'steps:\n- tap: A\n';
  assert.equal(appendStep(unindented, 'boxflow', { tap: 'B' }), `${unindented}- tap: B\n`);
});

test('a file without steps, or with `steps:` empty, gets its list; a last line without a newline is ended first', () => {
  assert.equal(appendStep('name: x\n', 'boxflow', { tap: 'A' }), 'name: x\nsteps:\n  - tap: A\n');
  assert.equal(appendStep('name: x\nsteps:   # to do\n', 'boxflow', { tap: 'A' }), 'name: x\nsteps:   # to do\n  - tap: A\n');
  assert.equal(appendStep('steps:\n  - back', 'boxflow', 'home'), 'steps:\n  - back\n  - home\n');
});

test('an unusual layout (a flow sequence) is written by the Document API, still reading as the old steps plus the new one', () => {
  const out = appendStep('name: x # n\nsteps: [back]\n', 'boxflow', { tap: 'A' });
  assert.deepEqual(parseDocument(out).toJS(), { name: 'x', steps: ['back', { tap: 'A' }] });
  assert.match(out, /# n/);
});

test('Maestro: commands after `---`, Maestro\'s syntax, its config and comments kept; a new file quotes text as Maestro\'s docs do', () => {
  const text = read('test/fixtures/maestro/demo/sign_in.yaml');
  const out = appendStep(appendStep(text, 'maestro', { tapOn: 'Sign in' }), 'maestro', { tapOn: { id: 'save' } });
  assert.ok(out.startsWith(text));
  assert.deepEqual((parseAllDocuments(out)[1]!.toJS() as unknown[]).slice(-2), [{ tapOn: 'Sign in' }, { tapOn: { id: 'save' } }]);
  const flow = parseMaestroYaml(out, '/x/sign_in.yaml');
  assert.equal(flow.steps.at(-1)!.kind, 'tap');
  const fresh = newFlowText('maestro', { name: 'New', web: true, app: 'http://127.0.0.1:4173/' });
  assert.equal(appendStep(appendStep(fresh, 'maestro', { tapOn: 'Save' }), 'maestro', { tapOn: { id: 'x' } }), 'url: http://127.0.0.1:4173/\nname: "New"\n---\n- tapOn: "Save"\n- tapOn: {id: x}\n');
  assert.equal(appendStep('appId: com.x\n---\n- launchApp\n', 'maestro', 'back'), 'appId: com.x\n---\n- launchApp\n- back\n');
});

test('the dialect: a Maestro flow by its content; a new file by its name', () => {
  assert.equal(dialectOf('/a/x.yaml', read('test/fixtures/maestro/demo/sign_in.yaml')), 'maestro');
  assert.equal(dialectOf('/a/x.yaml', read('flows/sign-in.flow.yaml')), 'boxflow');
  assert.equal(dialectOf('/a/new.flow.yaml', undefined), 'boxflow');
  assert.equal(dialectOf('/a/login.yaml', undefined), 'maestro');
  assert.equal(newFlowText('boxflow', { name: 'N', web: false }), 'name: "N"\nbox: android\nsteps:\n');
});

test('the steps list with lines, for the page', () => {
  const items = stepItems(read('flows/sign-in.flow.yaml'), 'boxflow');
  assert.deepEqual(items[1], { index: 1, line: 11, text: 'tap: { css: "#email" }' });
  assert.deepEqual(stepItems(read('test/fixtures/maestro/demo/sign_in.yaml'), 'maestro')[0], { index: 0, line: 7, text: 'launchApp' });
});

const commented = `# top
name: x
steps:
  # open the app
  - openTab: http://a/   # the app
  - tap:
      id: save
    # (the save button)

  # sign in
  - tap: { id: who }
  - type: ACME
# after the list
onFinish: [closeBrowser]
`;

test('a step inserted in the middle goes after the step before it, before the next one\'s comments; the rest byte for byte', () => {
  const out = insertStep(commented, 'boxflow', { assertVisible: 'Saved' }, 2);
  assert.equal(out, commented.replace('  # sign in\n', '  - assertVisible: Saved\n  # sign in\n'));
  assert.equal(insertStep(commented, 'boxflow', { tap: 'A' }, 0), commented.replace('  # open the app\n', '  - tap: A\n  # open the app\n'));
  assert.equal(insertStep(commented, 'boxflow', { tap: 'A' }, 99), appendStep(commented, 'boxflow', { tap: 'A' }));
  // Maestro: a block-style item in the middle of a Maestro file.
  const maestro = read('test/fixtures/maestro/demo/sign_in.yaml');
  const m = insertStep(maestro, 'maestro', { tapOn: 'Next' }, 3);
  assert.equal(m, maestro.replace('- inputText: ${USER}\n', '- tapOn: Next\n- inputText: ${USER}\n'));
  assert.equal(parseMaestroYaml(m, '/x/sign_in.yaml').steps[3]!.kind, 'tap');
});

test('a step moves with the comment lines above it, and the file keeps everything else', () => {
  const down = moveStep(commented, 'boxflow', 0, 1);
  assert.equal(down, `# top
name: x
steps:
  - tap:
      id: save
    # (the save button)

  # open the app
  - openTab: http://a/   # the app
  # sign in
  - tap: { id: who }
  - type: ACME
# after the list
onFinish: [closeBrowser]
`);
  assert.equal(moveStep(commented, 'boxflow', 3, 0), commented.replace('  - type: ACME\n', '').replace('  # open the app\n', '  - type: ACME\n  # open the app\n'));
  assert.equal(moveStep(down, 'boxflow', 1, 0), commented);
  // The last step to the end of a file without a final newline; a step to the end.
  assert.equal(moveStep('steps:\n  - a\n  - b', 'boxflow', 0, 1), 'steps:\n  - b\n  - a\n');
  assert.deepEqual(parseDocument(moveStep(commented, 'boxflow', 1, 3)).toJS().steps, [{ openTab: 'http://a/' }, { tap: { id: 'who' } }, { type: 'ACME' }, { tap: { id: 'save' } }]);
  // An unusual layout (a flow sequence): the Document API, same steps in the new order.
  assert.deepEqual(parseDocument(moveStep('name: x # n\nsteps: [a, b, c]\n', 'boxflow', 2, 0)).toJS(), { name: 'x', steps: ['c', 'a', 'b'] });
  assert.throws(() => moveStep(commented, 'boxflow', 7, 0), /no step 8/);
});

test('a deleted step takes its comment lines with it; the other steps, comments and blank lines stay', () => {
  assert.equal(deleteStep(commented, 'boxflow', 0), commented.replace('  # open the app\n  - openTab: http://a/   # the app\n', ''));
  assert.equal(deleteStep(commented, 'boxflow', 2), commented.replace('  # sign in\n  - tap: { id: who }\n', ''));
  assert.equal(deleteStep(commented, 'boxflow', 3), commented.replace('  - type: ACME\n', ''));
  const maestro = read('test/fixtures/maestro/demo/sign_in.yaml');
  assert.equal(deleteStep(maestro, 'maestro', 2), maestro.replace('- tapOn:\n    id: email\n', ''));
  assert.deepEqual(parseDocument(deleteStep('steps: [a, b]\n', 'boxflow', 0)).toJS(), { steps: ['b'] });
});
