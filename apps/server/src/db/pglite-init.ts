import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Creates the embedded database's cluster in a short-lived child process when its folder has none yet.
 *
 * Why apart: PGlite's initdb grows the process by about 450 MB (its WebAssembly heap and the buffers of
 * the cluster it unpacks) that the process never gives back, while opening an existing cluster costs
 * about 270 MB in all (measured with `process.memoryUsage().rss` on Node 20, docs/performance.md). Run
 * in-process, that made a server's first start carry 450 MB more for its whole life than any later
 * start. The child is gone once the cluster exists, and this process only ever opens one.
 *
 * The cluster is made in a sibling folder of this process's own and renamed into place, so a crash
 * meanwhile leaves no half-made cluster where the server looks. What a crash leaves is removed at the
 * next start, and a child whose parent died (SIGKILL during a first start) stops at once: a server
 * restarted by a supervisor never shares a folder with the child of the process it replaced.
 */
export async function createClusterApart(dir: string): Promise<void> {
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) return;
  const parent = path.dirname(dir);
  const leftover = `${path.basename(dir)}.init`;
  for (const name of fs.readdirSync(parent)) {
    if (name.startsWith(leftover)) fs.rmSync(path.join(parent, name), { recursive: true, force: true });
  }
  const tmp = `${dir}.init-${process.pid}`;
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const script = [
    // Reparented (ppid changes) when the server dies: nothing is left writing on its own.
    `const parent = process.ppid;`,
    `setInterval(() => { if (process.ppid !== parent) process.exit(1); }, 100).unref();`,
    `require(${JSON.stringify(entry)}).PGlite.create({ dataDir: ${JSON.stringify(tmp)} }).then((db) => db.close());`,
  ].join('\n');
  try {
    await new Promise<void>((resolve, reject) => {
      execFile(process.execPath, ['-e', script], { timeout: 120_000 }, (err, _out, stderr) =>
        err
          ? reject(new Error(`creating the embedded database failed: ${stderr || err.message}`))
          : resolve(),
      );
    });
    if (!fs.existsSync(path.join(tmp, 'PG_VERSION'))) {
      throw new Error(`creating the embedded database failed: no cluster in ${tmp}`);
    }
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(tmp, dir);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
