import fs from 'node:fs';
import path from 'node:path';

/**
 * Makes DATA_DIR 0700 and everything in it 0700 (folders) / 0600 (files): the embedded database
 * and the mail outbox are this account's only. (The master key file is not in it: master-key.ts keeps
 * it beside the folder, 0600, so a copy of the data folder decrypts nothing.) New files follow from the process
 * umask (0077, set in main.ts); this also tightens what an older version left readable.
 */
export function lockDownDataDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stack = [dir];
  while (stack.length > 0) {
    const current = stack.pop() as string;
    fs.chmodSync(current, 0o700);
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.isDirectory()) stack.push(full);
      else if (entry.isFile()) fs.chmodSync(full, 0o600);
    }
  }
}
