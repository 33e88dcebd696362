// `npm start`: builds the web app, then runs the server (tsx runs the TypeScript sources directly).
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const bin = (name) => path.join(root, 'node_modules/.bin', name);

if (process.env.SKIP_WEB_BUILD !== '1') {
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

const server = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: mode },
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.kill(sig));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
