// `npm start`: builds the web app and the server's bundle (scripts/server-bundle.ts, ~1 s), then runs
// the bundle: a start, and a restart after a crash, loads plain JavaScript instead of compiling some 300
// TypeScript files (issue 45 point 5). SKIP_BUILD=1 builds neither and runs the last bundle built
// (what a supervisor restarting the server after a crash should run); SKIP_WEB_BUILD=1 skips the web's.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name) => path.join(root, 'node_modules/.bin', name);

const skipBuild = process.env.SKIP_BUILD === '1';
if (!skipBuild && process.env.SKIP_WEB_BUILD !== '1') {
  const build = spawnSync(bin('vite'), ['build', '--logLevel', 'warn'], {
    cwd: path.join(root, 'apps/web'),
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// Production mode unless NODE_ENV says otherwise. The README's `SIMULATOR_CONTROL=1 npm start` asks for
// the simulator control, which production refuses: with no NODE_ENV given, that start runs in
// development mode and says so. NODE_ENV=production set explicitly still refuses it (config.ts).
const simulatorControl = ['1', 'true'].includes(process.env.SIMULATOR_CONTROL ?? '');
const mode = process.env.NODE_ENV || (simulatorControl ? 'development' : 'production');
if (!process.env.NODE_ENV && simulatorControl) {
  console.log(
    'npm start: SIMULATOR_CONTROL=1 asked, so NODE_ENV=development (production mode refuses the simulator control)',
  );
}

// The bundle's main.mjs: built now, or the last one built (scripts/server-bundle.ts CURRENT_BUNDLE).
const current = path.join(root, 'apps/server/node_modules/.cache/bytx-server/current');
let bundle = null;
if (!skipBuild) {
  const built = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'scripts/server-bundle.ts')],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    },
  );
  if (built.status !== 0) process.exit(built.status ?? 1);
  bundle = built.stdout.trim().split('\n').pop();
} else if (fs.existsSync(current)) {
  bundle = fs.readFileSync(current, 'utf8').trim();
}
const args =
  bundle && fs.existsSync(bundle)
    ? ['--enable-source-maps', bundle]
    : ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')];
const server = spawn(process.execPath, args, {
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: mode },
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.kill(sig));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
