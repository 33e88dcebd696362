// How fast this machine is right now, measured the same way at the start of every `npm run bench`, so
// runs on different days (or different virtual machines: the same 2 cores have been an Intel Xeon and a
// 2.1 GHz AMD EPYC) can be told apart. The benches' goals are absolute figures (req/s, ms), and each
// bench's baseline only cancels the machine out of its ratios.
import { hashPassword, verifyPassword } from '../../apps/server/src/modules/accounts/passwords';

export interface MachineCheck {
  /** The login's password check (argon2id, the server's parameters), median of 21, ms. */
  argon2Ms: number;
  /** One pass over 1,000,000 small objects in shuffled order (memory-bound, like a 10,000-bot fan-out), best of 5, ms. */
  walkMs: number;
  /** Load average over the last minute before the check. */
  load1: number;
}

export async function machineCheck(load1: number): Promise<MachineCheck> {
  const stored = await hashPassword('machine-check-password');
  const times: number[] = [];
  for (let i = 0; i < 21; i++) {
    const t = performance.now();
    if (!(await verifyPassword(stored, 'machine-check-password'))) throw new Error('argon2 check failed');
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);

  const n = 1_000_000;
  const objects = Array.from({ length: n }, (_, i) => ({ id: i, inner: { value: i & 7 } }));
  // A fixed permutation (multiplicative stride, coprime with n): no cache line is read in order.
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = (i * 7_919) % n;
  let sum = 0;
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 5; r++) {
    const t = performance.now();
    for (let i = 0; i < n; i++) sum += objects[order[i]!]!.inner.value;
    best = Math.min(best, performance.now() - t);
  }
  if (sum < 0) throw new Error('unreachable');
  return { argon2Ms: times[10]!, walkMs: best, load1 };
}
