import { Text } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A field's help under a control that has no `description` of its own (a segmented control, a
 * button): visible text with an id the control names in `aria-describedby`. The inputs use Mantine's
 * `description`, which does the same.
 */
export function HelpText({ id, children }: { id: string; children: ReactNode }) {
  return (
    <Text id={id} size="xs" c="dimmed" mt={4}>
      {children}
    </Text>
  );
}

/**
 * A glossary of the terms the bot rows show (RA, SL, TP+, VNC…), each text naming its term, closed
 * until opened: a native `<details>`, reachable by Tab and opened with Enter or Space, no script of its own.
 */
export function TermsHelp({ summary, terms, testId }: { summary: string; terms: string[]; testId: string }) {
  return (
    <details data-testid={testId}>
      <summary className="mantine-focus-auto" style={{ cursor: 'pointer' }}>
        <Text span size="sm">
          {summary}
        </Text>
      </summary>
      <ul style={{ margin: '4px 0 0', paddingLeft: 18 }}>
        {terms.map((text) => (
          <Text component="li" key={text} size="xs" mb={4}>
            {text}
          </Text>
        ))}
      </ul>
    </details>
  );
}
