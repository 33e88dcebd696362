import fs from 'node:fs';
import path from 'node:path';

/** Writes one `## title` section into bench/RESULTS.md, replacing it in place when it is there (A/B scripts). */
export function writeResultsSection(title: string, markdown: string): void {
  const file = path.join(import.meta.dirname, '..', 'RESULTS.md');
  const text = fs.readFileSync(file, 'utf8');
  const at = text.indexOf(`\n## ${title}\n`);
  const section = `\n## ${title}\n\n${markdown}\n`;
  if (at < 0) fs.writeFileSync(file, text + section);
  else {
    const end = text.indexOf('\n## ', at + 1);
    fs.writeFileSync(file, text.slice(0, at) + section + (end < 0 ? '' : text.slice(end)));
  }
  console.log(`wrote '${title}' into ${file}`);
}
