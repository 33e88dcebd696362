import { fireEvent } from '@testing-library/react';

/**
 * Puts a value in a field with the event a browser fires: `change` for a select, `input` for a text
 * field (what typing fires; React's and Preact's onChange both listen to it, while a bare `change`
 * on a text field reaches only React's).
 */
export function setValue(el: Element, value: string) {
  return el instanceof HTMLSelectElement
    ? fireEvent.change(el, { target: { value } })
    : fireEvent.input(el, { target: { value } });
}
