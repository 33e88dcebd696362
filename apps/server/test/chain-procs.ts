import fs from 'node:fs';

/** The watchdog of an anvil pid (modules/chain/embedded.ts: found by its command line), if running. */
export function watchdogOf(anvilPid: number): number | null {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args.includes('bytx-chain-watchdog') && args.includes(String(anvilPid))) return Number(entry);
    } catch {
      // gone
    }
  }
  return null;
}
