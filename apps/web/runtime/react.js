// The shipped build's `react`: Preact's React-compatible layer (docs/web-shell.md "The runtime").
// Plain JavaScript so that it is bundled as it is and never type-checked against React's own types.
import { createElement } from 'preact/compat';

export * from 'preact/compat';
export { default } from 'preact/compat';

/**
 * React 19.2's `<Activity>`, which preact/compat lacks: Mantine wraps kept-mounted content in it
 * (Tabs panels, Transition and Collapse with keepMounted). `hidden` keeps the subtree mounted and
 * out of sight, as React does; React also pauses the subtree's effects, which no caller here needs.
 * The wrapper is always there (display: contents when visible) so a change of mode does not remount.
 */
export function Activity({ mode, children }) {
  return createElement('div', { style: { display: mode === 'hidden' ? 'none' : 'contents' } }, children);
}
