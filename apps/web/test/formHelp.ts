import { expect } from 'vitest';

/** An element's accessible description: the texts of the elements its `aria-describedby` names. */
export function descriptionOf(el: Element): string {
  const ids = (el.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
  return ids
    .map((id) => el.ownerDocument.getElementById(id)?.textContent ?? '')
    .join(' ')
    .trim();
}

/**
 * The fields of a start form a user fills or chooses: selects, text and switch inputs, segmented
 * controls (their radiogroup) and the leverage button; not the radios inside a group, the preset
 * buttons, the submit or Backtest buttons.
 */
export function fieldsOf(form: Element): Element[] {
  return [
    ...form.querySelectorAll(
      'select, input:not([type="radio"]):not([type="hidden"]), [role="radiogroup"], [data-testid$="leverage-btn"]',
    ),
  ];
}

/** Every field of `form` has a help text (its accessible description) with an example (`example`). */
export function expectEveryFieldHelped(form: Element, example: RegExp, atLeast: number) {
  const fields = fieldsOf(form);
  expect(fields.length).toBeGreaterThanOrEqual(atLeast);
  for (const f of fields) {
    const name = f.getAttribute('data-testid') ?? f.getAttribute('aria-label') ?? f.outerHTML.slice(0, 80);
    const help = descriptionOf(f);
    expect(help, `help of ${name}`).not.toBe('');
    // What it does and an example: a sentence of some length with the language's "e.g.".
    expect(help.length, `help of ${name}: ${help}`).toBeGreaterThan(40);
    if (!f.matches('[role="radiogroup"], input[type="checkbox"]'))
      expect(help, `example in ${name}`).toMatch(example);
  }
}

/** The inputs' values by test id. */
export const valuesOf = (root: ParentNode, ids: string[]) =>
  Object.fromEntries(
    ids.map((id) => [id, (root.querySelector(`[data-testid="${id}"]`) as HTMLInputElement).value]),
  );
