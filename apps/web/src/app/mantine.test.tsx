// @vitest-environment node
/**
 * app/styles/theme.css holds what Mantine's provider would write for the app's theme (its CSS
 * variables and the `visibleFrom` classes): the first paint has no provider (app/mantine.tsx).
 */
import fs from 'node:fs';
import path from 'node:path';
import { MantineProvider } from '@mantine/core';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { theme } from '../shared/ui/theme';

/** Every `selector { declarations }` of a stylesheet, at-rules flattened, whitespace and quotes normalised. */
function rules(css: string): string[] {
  const text = css
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\s+/g, ' ')
    .replace(/"/g, "'");
  const out: string[] = [];
  for (const m of text.matchAll(/(@media[^{]*\{)?\s*([^{}@]+)\{([^{}]*)\}/g)) {
    const media = (m[1] ?? '').replace(/\s+/g, '').replace('{', '');
    for (const decl of m[3]!.split(';')) {
      const d = decl.replace(/\s+/g, '');
      if (d) out.push(`${media}|${m[2]!.replace(/\s+/g, '')}|${d}`);
    }
  }
  return out;
}

describe('theme.css', () => {
  it("holds the provider's CSS variables and global classes for the theme", () => {
    const markup = renderToStaticMarkup(
      <MantineProvider theme={theme} defaultColorScheme="dark">
        x
      </MantineProvider>,
    );
    const written = [...markup.matchAll(/<style data-mantine-styles="[a-z]+">([\s\S]*?)<\/style>/g)]
      .map((m) => m[1]!)
      .join('\n');
    const expected = rules(written);
    expect(expected.length).toBeGreaterThan(20);
    const file = fs.readFileSync(path.join(import.meta.dirname, 'styles/theme.css'), 'utf8');
    const have = new Set(rules(file));
    expect(expected.filter((r) => !have.has(r))).toEqual([]);
  });
});
