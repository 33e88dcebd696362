import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { seedDataDir } from '../apps/server/test/db-snapshot';

const ROOT = path.resolve(import.meta.dirname, '..');
const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

export function findChromium(): string | null {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv && fs.existsSync(fromEnv)) return fromEnv;
  return CHROMIUM_PATHS.find((p) => fs.existsSync(p)) ?? null;
}

export const E2E_SKIP_REASON = 'Chromium not found at /usr/bin/chromium: end-to-end browser tests skipped';
export const hasChromium = findChromium() !== null;
if (!hasChromium) console.log(`[skip] ${E2E_SKIP_REASON}`);

/** A port no socket uses now (the kernel's pick for a listener on port 0), for a server started next. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * How to run the server: the bundle the test run built (apps/server/test/global-setup.ts, 2 s and a
 * third of the CPU less per start), else its TypeScript through tsx.
 */
export function serverArgs(): string[] {
  const bundle = process.env.BYTX_SERVER_BUNDLE;
  if (bundle && fs.existsSync(bundle)) return ['--enable-source-maps', bundle];
  return ['--import', 'tsx', path.join(ROOT, 'apps/server/src/main.ts')];
}

/** Whether the server's chain is up (`GET /api/chain` says `ready`). */
async function chainReady(baseUrl: string): Promise<boolean> {
  const res = await fetch(`${baseUrl}/api/chain`);
  return res.ok && ((await res.json()) as { ready?: boolean }).ready === true;
}

export interface RunningServer {
  baseUrl: string;
  dataDir: string;
  outboxDir: string;
  child: ChildProcess;
  logs: () => string;
  stop: () => Promise<void>;
}

/**
 * Starts the real server (`main.ts`) on a free port, on `dataDir` or a new DATA_DIR whose database
 * starts from the test run's migrated snapshot (`fresh: true` for an empty one, as `npm start` on a new
 * machine); ends it by its PID.
 */
export async function startServer(
  env: Record<string, string> = {},
  dataDir?: string,
  opts: { fresh?: boolean; nodeArgs?: string[] } = {},
): Promise<RunningServer> {
  const port = await freePort();
  let dir = dataDir;
  if (!dir) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-e2e-'));
    if (!opts.fresh) seedDataDir(dir);
  }
  let output = '';
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...serverArgs()], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      PORT: String(port),
      HOST: '127.0.0.1',
      // The URLs the server shows (the chain's RPC URL, webhook URLs) come from PUBLIC_URL (issue 37 #13).
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dir,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${output}`);
    try {
      // Ready, not only alive: the database answers and the bot runner's first reconcile is done.
      const res = await fetch(`${baseUrl}/api/ready`);
      // The embedded chain starts in the background of a ready server (issue 45 point 5): the tests
      // that ask for it use it at once, so they wait for it too.
      if (res.ok && (env.CHAIN !== 'embedded' || (await chainReady(baseUrl)))) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      // Ours, by its PID: a server that never answered must not outlive the test run.
      child.kill('SIGKILL');
      throw new Error(`server did not start in 120 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    baseUrl,
    dataDir: dir,
    outboxDir: path.join(dir, 'outbox'),
    child,
    logs: () => output,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  close: () => Promise<void>;
}

/** Debian's Chromium with a fresh profile and the flags this closed network needs. */
export async function openBrowser(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error(E2E_SKIP_REASON);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'bytx-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Moves the pointer over the page until `target` is there. The header's menus and sign-in form load at
 * the visitor's first interaction, else 5 s after the load event and an idle moment
 * (apps/web/src/app/shell/wanted.ts): a click on `nav-trade` right after a page load waited out that
 * timer (5.5 s measured). A pointer move is what a visitor does first; it is repeated because the page
 * listens for it only once its header has mounted. Gives up after `timeoutMs`: the caller's own wait
 * or click then fails with its usual message.
 */
export async function pointUntil(page: Page, target: Locator, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; (await target.count()) === 0 && Date.now() < deadline; i++) {
    // Two points 1 px apart, near the top left corner (the logo), away from the toasts.
    await page.mouse.move(4 + (i % 2), 4);
    await new Promise((r) => setTimeout(r, 50));
  }
}
