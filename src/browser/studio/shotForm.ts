// boxflow studio's screenshot assertion form, opened from an element's menu: the baseline's name
// (typed in the page, never a browser prompt), what it holds (the element, its baseline the element's
// size, or the whole screen) and the elements masked in it. Adding runs the step; cancelling says
// that nothing was added. The page script (main.ts) gives it what it works with (ShotFormHost).

export interface ShotFormHost {
  form: HTMLElement;
  el(tag: string, props?: Record<string, string>, ...children: (Node | string)[]): HTMLElement;
  toast(text: string, bad?: boolean): void;
  /** Masks chosen with "Mask in screenshots", as the page shows them. */
  masks(): string[];
}

/** Adds the assertion (runs it on the box); true when it was added. */
export type AddShot = (opts: { name: string; crop: boolean }) => Promise<boolean>;

export function studioShotForm(host: ShotFormHost) {
  const { form, el } = host;
  let close: ((added: boolean) => void) | undefined;

  /** Opens the form for the element `selector` names (undefined: nothing singles it out, only the whole screen can be taken). */
  function open(selector: string | undefined, add: AddShot): void {
    close?.(false);
    const name = el('input', { 'data-testid': 'shot-name', value: 'screen', autocomplete: 'off', spellcheck: 'false', 'aria-label': 'Name of the screenshot (its baseline file)' }) as HTMLInputElement;
    const choice = (value: string, label: string, testid: string, on: boolean, disabled = false) => {
      const input = el('input', { type: 'radio', name: 'shot-crop', value, 'data-testid': testid }) as HTMLInputElement;
      input.checked = on;
      input.disabled = disabled;
      return el('label', { class: 'choice' }, input, label);
    };
    const masks = host.masks();
    const error = el('div', { class: 'err', 'data-testid': 'shot-error' });
    const addButton = el('button', { type: 'submit', class: 'primary', 'data-testid': 'shot-add', text: 'Add assertion' }) as HTMLButtonElement;
    const cancel = el('button', { type: 'button', 'data-testid': 'shot-cancel', text: 'Cancel' });
    const body = el(
      'form',
      {},
      el('div', { class: 'title', text: 'Assert screenshot' }),
      el('label', { class: 'field' }, 'Name ', name),
      choice('element', `This element: ${selector ?? '(no selector singles it out)'}`, 'shot-crop-element', selector !== undefined, selector === undefined),
      choice('screen', 'The whole screen', 'shot-crop-screen', selector === undefined),
      el('div', { class: 'hint', 'data-testid': 'shot-masks', text: masks.length ? `Masked: ${masks.join(', ')}` : 'Nothing masked (an element\'s menu: "Mask in screenshots")' }),
      error,
      el('div', { class: 'buttons' }, addButton, cancel),
    ) as HTMLFormElement;
    form.replaceChildren(body);
    form.hidden = false;
    name.focus();
    name.select();
    close = (added) => {
      form.hidden = true;
      form.replaceChildren();
      close = undefined;
      if (!added) host.toast('No screenshot assertion was added');
    };
    cancel.addEventListener('click', () => close?.(false));
    body.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        close?.(false);
      }
    });
    body.addEventListener('submit', (e) => {
      e.preventDefault();
      const value = name.value.trim();
      if (!value) {
        error.textContent = 'Give the screenshot a name: it names its baseline file.';
        return;
      }
      if (/[\\:*?"<>|]/.test(value) || value.startsWith('/') || value.split('/').includes('..')) {
        error.textContent = 'A name is a relative path without \\ : * ? " < > | or "..".';
        return;
      }
      const crop = (body.querySelector('input[name="shot-crop"]:checked') as HTMLInputElement | null)?.value === 'element';
      addButton.disabled = true;
      form.hidden = true;
      void add({ name: value, crop }).then((added) => {
        if (added) close?.(true);
        else {
          // Failed: the form comes back as it was, to change and try again.
          form.hidden = false;
          addButton.disabled = false;
        }
      });
    });
  }

  return { open, isOpen: () => !form.hidden };
}
