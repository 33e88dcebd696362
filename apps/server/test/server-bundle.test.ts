import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUNDLED_PACKAGES } from '../../../scripts/server-bundle';

/**
 * The server's bundle (built by the run's global setup, scripts/server-bundle.ts) carries viem, zod,
 * drizzle-orm and the rest of BUNDLED_PACKAGES inside its chunks (issue 45 point 5: ~700 fewer files
 * loaded at a restart): none of them is left as an import the bundle makes of node_modules.
 */
describe('the server bundle', () => {
  it('imports none of BUNDLED_PACKAGES from node_modules, and still imports the rest from there', () => {
    const main = process.env.BYTX_SERVER_BUNDLE;
    expect(main && fs.existsSync(main)).toBeTruthy();
    const dir = path.dirname(main!);
    const specifiers = new Set<string>();
    for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.mjs'))) {
      const text = fs.readFileSync(path.join(dir, name), 'utf8');
      // esbuild's own statements (double quotes, at a line's start), not the packages' doc comments.
      const imports =
        /^(?:import\s[^\n]*?|\}\s)from\s"([^".][^"]*)";?$|^import\s"([^".][^"]*)";?$|\bimport\("([^".][^"]*)"\)/gm;
      for (const m of text.matchAll(imports)) specifiers.add((m[1] ?? m[2] ?? m[3])!);
    }
    const bundledLeftOutside = [...specifiers].filter((s) => BUNDLED_PACKAGES.test(s));
    expect(bundledLeftOutside).toEqual([]);
    // Packages that look files up beside their own code stay outside.
    expect(specifiers).toContain('@electric-sql/pglite');
    expect(specifiers).toContain('fastify');
  });
});
