import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startAnvil, type AnvilHandle } from '@bytx/chain/node';
import type { FastifyBaseLogger } from 'fastify';

/**
 * The embedded chain's process (docs/chain.md): anvil in DATA_DIR/chain, its state in `state.json`
 * (written every second and on SIGTERM), its pid in `anvil.pid`.
 *
 * A server killed with SIGKILL cannot stop its anvil, so two things make sure none is left running:
 * - a watchdog: a tiny `sh` whose stdin is a pipe from this process. The kernel closes the pipe when this
 *   process dies however it dies; `read` then returns and the watchdog sends SIGTERM to anvil (which
 *   saves its state);
 * - the pid file: the next start stops an anvil still recorded there (only if that pid is an anvil on
 *   this very state file, and no longer the child of the live server that started it) before it starts
 *   its own.
 */
export class EmbeddedNode {
  private handle: AnvilHandle | null = null;
  private watchdog: ChildProcess | null = null;

  constructor(
    private readonly dir: string,
    private readonly chainId: number,
    private readonly log: FastifyBaseLogger,
  ) {}

  get stateFile(): string {
    return path.join(this.dir, 'state.json');
  }
  get pidFile(): string {
    return path.join(this.dir, 'anvil.pid');
  }
  get pid(): number | null {
    return this.handle?.pid ?? null;
  }
  get watchdogPid(): number | null {
    return this.watchdog?.pid ?? null;
  }

  /** Starts anvil in automine mode (the caller deploys, then turns interval mining on). */
  async start(): Promise<string> {
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    await this.stopStale();
    // The pid file and the watchdog as soon as anvil is spawned, not once it answers: a server killed
    // while anvil starts (a few hundred ms) left it running unrecorded, and the next start ran a second
    // anvil on the same state file (found by the restart bench: 2 of 10 SIGKILLs).
    const spawned: { pid?: number; watchdog?: ChildProcess } = {};
    let handle: AnvilHandle;
    try {
      handle = await startAnvil({
        stateFile: this.stateFile,
        chainId: this.chainId,
        onSpawn: (pid) => {
          spawned.pid = pid;
          fs.writeFileSync(this.pidFile, JSON.stringify({ anvil: pid, server: process.pid }), {
            mode: 0o600,
          });
          spawned.watchdog = spawnWatchdog(pid);
        },
      });
    } catch (err) {
      // startAnvil has stopped the anvil it spawned: its watchdog and pid file go too.
      spawned.watchdog?.kill('SIGKILL');
      if (spawned.pid !== undefined && readPidFile(this.pidFile)?.anvil === spawned.pid)
        fs.rmSync(this.pidFile, { force: true });
      throw err;
    }
    this.handle = handle;
    this.watchdog = spawned.watchdog ?? spawnWatchdog(handle.pid);
    // Neither keeps the event loop alive: app.close stops them, the watchdog covers a hard exit.
    handle.child.unref();
    if (handle.recovered !== 'none') {
      // A state file cut short by a hard kill: the last complete copy (the chain went back a few seconds;
      // the indexer undoes what it saw after it), or none (a new chain: the contracts are deployed again).
      this.log.warn({ recovered: handle.recovered }, 'the embedded chain state file was cut short');
    }
    this.log.info({ pid: handle.pid, rpcUrl: handle.rpcUrl }, 'embedded chain started');
    return handle.rpcUrl;
  }

  /** SIGTERM (anvil writes its state), waits for it to exit; then the watchdog and the pid file go. */
  async stop(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    const watchdog = this.watchdog;
    this.watchdog = null;
    // The watchdog first: it must not signal a pid that may be reused once anvil has exited.
    if (watchdog && watchdog.exitCode === null && watchdog.signalCode === null) watchdog.kill('SIGKILL');
    if (handle) {
      await handle.stop();
      if (readPidFile(this.pidFile)?.anvil === handle.pid) fs.rmSync(this.pidFile, { force: true });
      this.log.info({ pid: handle.pid }, 'embedded chain stopped');
    }
  }

  /** Stops an anvil left running on this state file by an earlier process (recorded in the pid file). */
  private async stopStale(): Promise<void> {
    const recorded = readPidFile(this.pidFile);
    if (!recorded) return;
    const pid = recorded.anvil;
    if (!isAnvilOn(pid, this.stateFile)) return;
    // Still the child of the server that started it, and that server is not us: a live server runs
    // this chain (two servers on one DATA_DIR). Its node is not ours to stop.
    const owner = recorded.server;
    if (owner !== null && owner !== process.pid && parentOf(pid) === owner && alive(owner)) {
      throw new Error(`the embedded chain of this DATA_DIR is run by another server process (pid ${owner})`);
    }
    this.log.warn({ pid }, 'stopping the embedded chain an earlier process left running');
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      return;
    }
    const deadline = Date.now() + 10_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (alive(pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
}

/** The pid file: `{anvil, server}` (the anvil process and the server that started it). */
function readPidFile(file: string): { anvil: number; server: number | null } | null {
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    const parsed: unknown = text.startsWith('{') ? JSON.parse(text) : { anvil: Number(text) };
    const { anvil, server } = parsed as { anvil?: unknown; server?: unknown };
    if (typeof anvil !== 'number' || !Number.isInteger(anvil) || anvil <= 1) return null;
    return { anvil, server: typeof server === 'number' && Number.isInteger(server) ? server : null };
  } catch {
    return null;
  }
}

/** The parent pid of a process (/proc/<pid>/stat, field 4), null when unknown. */
function parentOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A zombie (exited, not yet reaped by its parent) still answers signal 0.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

/** True when `pid` runs anvil with this state file (a reused pid of anything else is left alone). */
function isAnvilOn(pid: number, stateFile: string): boolean {
  try {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return path.basename(args[0] ?? '').startsWith('anvil') && args.includes(stateFile);
  } catch {
    return false;
  }
}

/** `sh` reading its stdin (a pipe from us) until it closes, then SIGTERM to `pid`. */
function spawnWatchdog(pid: number): ChildProcess {
  const child = spawn(
    '/bin/sh',
    ['-c', 'read -r _; kill -TERM "$1" 2>/dev/null', 'bytx-chain-watchdog', String(pid)],
    {
      stdio: ['pipe', 'ignore', 'ignore'],
    },
  );
  child.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  child.unref();
  // The pipe's handle must not keep the event loop alive either.
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return child;
}
