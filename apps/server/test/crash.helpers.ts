import type { RunningServer } from '../../../e2e/harness';

/** Kills the server child with SIGKILL (no shutdown hook runs) and resolves once it has exited. */
export function kill9(server: RunningServer): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((r) => server.child.once('exit', () => r()));
  server.child.kill('SIGKILL');
  return exited;
}

/**
 * A repeatable random source in [0, 1) from `seed` (a linear congruential generator, glibc's constants,
 * modulus 2^31): the same seed gives the same run of prices and kill moments.
 */
export function seededRandom(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}
