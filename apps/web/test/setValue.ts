import { fireEvent } from '@testing-library/react';

/**
 * Puts a value in a field with the event a browser fires: `change` for a select, `input` for a text
 * field (what typing fires, and what React's onChange listens to on a text field).
 */
export function setValue(el: Element, value: string) {
  return el instanceof HTMLSelectElement
    ? fireEvent.change(el, { target: { value } })
    : fireEvent.input(el, { target: { value } });
}
