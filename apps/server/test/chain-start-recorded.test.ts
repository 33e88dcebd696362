/**
 * The embedded chain's anvil is recorded (pid file) and watched (the watchdog that stops it when the
 * server dies) from the moment it is spawned, not only once it answers: a server SIGKILLed during the few
 * hundred ms of anvil's start used to leave it running unrecorded, and the next start ran a second anvil
 * on the same state file (found by bench/restart.bench.ts: 2 orphans after 10 kills).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedNode } from '../src/modules/chain/embedded';
import { watchdogOf } from './chain-procs';

describe('embedded chain start', () => {
  const dirs: string[] = [];
  const nodes: EmbeddedNode[] = [];
  afterEach(async () => {
    for (const n of nodes.splice(0)) await n.stop();
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });

  it('writes the pid file and starts the watchdog before anvil answers', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-chain-start-'));
    dirs.push(dir);
    const node = new EmbeddedNode(path.join(dir, 'chain'), 42161, pino({ level: 'silent' }));
    nodes.push(node);
    let started = false;
    const start = node.start().then((url) => {
      started = true;
      return url;
    });
    // Poll while start() is still waiting for anvil's RPC: the pid file must be there already.
    let seenWhileStarting: { anvil: number; watchdog: number | null } | null = null;
    while (!started && seenWhileStarting === null) {
      if (fs.existsSync(node.pidFile)) {
        const pid = (JSON.parse(fs.readFileSync(node.pidFile, 'utf8')) as { anvil: number }).anvil;
        seenWhileStarting = { anvil: pid, watchdog: watchdogOf(pid) };
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    const rpcUrl = await start;
    expect(rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(seenWhileStarting).not.toBeNull();
    expect(started && seenWhileStarting === null).toBe(false);
    expect(seenWhileStarting!.anvil).toBe(node.pid);
    expect(seenWhileStarting!.watchdog).not.toBeNull();
    expect(seenWhileStarting!.watchdog).toBe(node.watchdogPid);
  });
});
