import { beforeAll } from 'vitest';
import { waitForWebBuild } from './global-setup';

// The browser tests load the built web app, whose build the global setup started without waiting for it
// (e2e/global-setup.ts). 240 s: the build took 30 s at load 20 on the 2-core machine.
beforeAll(() => waitForWebBuild(240_000), 250_000);
