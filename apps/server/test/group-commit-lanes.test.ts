import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../src/lib/batcher';

/** A GroupCommit whose transactions are recorded and, while held, kept open until released. */
function harness(opts: { maxBatch?: number; maxBulk?: number; bulkWaitMs?: number; overlap?: boolean } = {}) {
  const batches: string[][] = [];
  const committed: string[] = [];
  const gates: (() => void)[] = [];
  let hold = false;
  const gc = new GroupCommit<string>({
    commit: async (items) => {
      batches.push(items);
      if (hold) await new Promise<void>((r) => gates.push(r));
      if (items.includes('bad')) throw new Error('bad item');
      committed.push(...items);
    },
    one: async (item) => {
      if (item === 'bad') throw new Error('bad item');
      committed.push(item);
    },
    ...opts,
  });
  return {
    gc,
    batches,
    committed,
    holdNext: () => (hold = true),
    /** Stops holding and lets every held transaction commit. */
    release: () => {
      hold = false;
      for (const g of gates.splice(0)) g();
    },
    /** Lets the oldest held transaction commit (holding goes on). */
    releaseOne: () => gates.shift()?.(),
  };
}

const turn = () => new Promise<void>((r) => setImmediate(r));
/** Until `pred` holds, one event-loop turn at a time (bounded: a test that cannot get there fails). */
async function until(pred: () => boolean) {
  for (let i = 0; i < 200 && !pred(); i++) await turn();
  expect(pred()).toBe(true);
}

// lib/batcher.ts's send lane (issue 45 point 6): a journal row an order waits for commits ahead of the
// writes nobody waits for, never ahead of an earlier write of its own key, and nothing is answered
// before its transaction has committed.
describe('GroupCommit send lane', () => {
  it('an urgent item goes ahead of the bulk, with its key’s earlier items, in order', async () => {
    const h = harness();
    h.holdNext();
    const first = h.gc.add('x0', { key: 'x' }); // starts a transaction, held open
    await until(() => h.batches.length === 1);
    const done: string[] = [];
    const track = (name: string, p: Promise<void>) => p.then(() => void done.push(name));
    const all = [
      track('a1', h.gc.add('a1', { key: 'a' })),
      track('b1', h.gc.add('b1', { key: 'b' })),
      track('a2', h.gc.add('a2', { key: 'a' })),
      track('c1', h.gc.add('c1', { key: 'c' })),
      track('b2', h.gc.add('b2', { key: 'b', urgent: true })),
      track('a3', h.gc.add('a3', { key: 'a' })),
    ];
    h.release();
    await first;
    await Promise.all(all);
    // b's journal row went with b's earlier write only; a and c waited for the next (bulk) batch, and a3
    // (made after b2) is not pulled forward.
    expect(h.batches).toEqual([['x0'], ['b1', 'b2'], ['a1', 'a2', 'c1', 'a3']]);
    expect(done.slice(0, 2).sort()).toEqual(['b1', 'b2']);
    expect(h.committed).toEqual(['x0', 'b1', 'b2', 'a1', 'a2', 'c1', 'a3']);
  });

  it('an urgent item is not answered before its transaction has committed', async () => {
    const h = harness();
    h.holdNext();
    let answered = false;
    const p = h.gc.add('j1', { key: 'j', urgent: true }).then(() => (answered = true));
    await until(() => h.batches.length === 1);
    for (let i = 0; i < 5; i++) await turn();
    expect(answered).toBe(false);
    expect(h.committed).toEqual([]);
    h.release();
    await p;
    expect(h.committed).toEqual(['j1']);
  });

  it('an item without a key takes everything before it; a barrier waits for everything before it', async () => {
    const h = harness();
    h.holdNext();
    const first = h.gc.add('x0', { key: 'x' });
    await until(() => h.batches.length === 1);
    const a = h.gc.add('a1', { key: 'a' });
    const any = h.gc.add('u1'); // no key: may touch anything
    const b = h.gc.add('b1', { key: 'b', urgent: true });
    let barrierDone = false;
    const barrier = h.gc.barrier().then(() => (barrierDone = true));
    const c = h.gc.add('c1', { key: 'c' });
    h.release();
    await Promise.all([first, a, any, b, barrier, c]);
    expect(barrierDone).toBe(true);
    // u1 has no key, so b1 (after it) waits for everything before u1 too.
    expect(h.batches).toEqual([['x0'], ['a1', 'u1', 'b1'], ['c1']]);
  });

  it('a barrier made after bulk items resolves only once they have committed, urgent items overtaking it', async () => {
    const h = harness();
    h.holdNext();
    const first = h.gc.add('x0', { key: 'x' });
    await until(() => h.batches.length === 1);
    const bulk = h.gc.add('a1', { key: 'a' });
    let committedAtBarrier: string[] = [];
    const barrier = h.gc.barrier().then(() => (committedAtBarrier = [...h.committed]));
    const urgent = h.gc.add('b1', { key: 'b', urgent: true });
    h.release();
    await Promise.all([first, bulk, barrier, urgent]);
    expect(h.batches).toEqual([['x0'], ['b1'], ['a1']]);
    expect(committedAtBarrier).toContain('a1');
  });

  it('bulk transactions hold at most maxBulk items; a send-lane burst at most maxBatch', async () => {
    const h = harness({ maxBulk: 2, maxBatch: 3 });
    h.holdNext();
    const first = h.gc.add('x0', { key: 'x' });
    await until(() => h.batches.length === 1);
    const items = ['a1', 'a2', 'a3', 'a4', 'a5'].map((k) => h.gc.add(k, { key: k }));
    const urgent = ['u1', 'u2', 'u3', 'u4'].map((k) => h.gc.add(k, { key: k, urgent: true }));
    h.release();
    await Promise.all([first, ...items, ...urgent]);
    // The urgent four in batches of 3 then 1 (oldest first), then the bulk 2 at a time.
    expect(h.batches).toEqual([['x0'], ['u1', 'u2', 'u3'], ['u4'], ['a1', 'a2'], ['a3', 'a4'], ['a5']]);
  });

  it('once the oldest bulk item waited past bulkWaitMs, the oldest maxBulk go with the urgent ones', async () => {
    const h = harness({ bulkWaitMs: 0, maxBulk: 1 });
    h.holdNext();
    const first = h.gc.add('x0', { key: 'x' });
    await until(() => h.batches.length === 1);
    const a1 = h.gc.add('a1', { key: 'a' });
    const c1 = h.gc.add('c1', { key: 'c' });
    await new Promise((r) => setTimeout(r, 2));
    const b1 = h.gc.add('b1', { key: 'b', urgent: true });
    h.release();
    await Promise.all([first, a1, c1, b1]);
    // a1 (the starved prefix of one) rides with b1; c1 is neither, and waits.
    expect(h.batches).toEqual([['x0'], ['a1', 'b1'], ['c1']]);
  });

  it('bulk items that waited past bulkWaitMs are not held behind urgent ones', async () => {
    const h = harness({ bulkWaitMs: 0 });
    h.holdNext();
    const first = h.gc.add('x0', { key: 'x' });
    await until(() => h.batches.length === 1);
    const bulk = h.gc.add('a1', { key: 'a' });
    await new Promise((r) => setTimeout(r, 2));
    const urgent = h.gc.add('b1', { key: 'b', urgent: true });
    h.release();
    await Promise.all([first, bulk, urgent]);
    expect(h.batches).toEqual([['x0'], ['a1', 'b1']]);
  });

  it('a failed send-lane batch is committed item by item: only the bad item fails', async () => {
    const h = harness();
    h.holdNext();
    const first = h.gc.add('x0', { key: 'x' });
    await until(() => h.batches.length === 1);
    const good = h.gc.add('g1', { key: 'g', urgent: true });
    const bad = h.gc.add('bad', { key: 'z', urgent: true });
    h.release();
    await first;
    await expect(good).resolves.toBeUndefined();
    await expect(bad).rejects.toThrow('bad item');
    expect(h.committed).toEqual(['x0', 'g1']);
  });

  it('with overlap, a send-lane batch commits beside a bulk one when no key is in both', async () => {
    const h = harness({ overlap: true });
    h.holdNext();
    const bulk = h.gc.add('a1', { key: 'a' });
    await until(() => h.batches.length === 1);
    // b's journal row shares no key with the bulk batch under way: it starts and commits beside it.
    let bDone = false;
    const b = h.gc.add('b1', { key: 'b', urgent: true }).then(() => (bDone = true));
    await until(() => h.batches.length === 2);
    h.releaseOne(); // the oldest held is a1's; b1's still held
    await bulk;
    expect(bDone).toBe(false);
    h.release();
    await b;
    expect(h.batches).toEqual([['a1'], ['b1']]);
  });

  it('with overlap, a send-lane item whose key is in the bulk batch under way waits for it', async () => {
    const h = harness({ overlap: true });
    h.holdNext();
    const bulk = h.gc.add('a1', { key: 'a' });
    await until(() => h.batches.length === 1);
    const a2 = h.gc.add('a2', { key: 'a', urgent: true });
    for (let i = 0; i < 5; i++) await turn();
    expect(h.batches).toEqual([['a1']]);
    h.release();
    await Promise.all([bulk, a2]);
    expect(h.batches).toEqual([['a1'], ['a2']]);
    expect(h.committed).toEqual(['a1', 'a2']);
  });

  it('with overlap, nothing starts beside a batch holding an item of no key, and a barrier waits for both lanes', async () => {
    const h = harness({ overlap: true });
    h.holdNext();
    const any = h.gc.add('u1');
    await until(() => h.batches.length === 1);
    const b = h.gc.add('b1', { key: 'b', urgent: true });
    for (let i = 0; i < 5; i++) await turn();
    expect(h.batches).toEqual([['u1']]);
    h.release();
    await Promise.all([any, b]);
    // A bulk batch, then a send-lane one beside it, then a barrier: it resolves after both.
    h.holdNext();
    const c = h.gc.add('c1', { key: 'c' });
    await until(() => h.batches.length === 3);
    const d = h.gc.add('d1', { key: 'd', urgent: true });
    await until(() => h.batches.length === 4);
    let barrierDone = false;
    const barrier = h.gc.barrier().then(() => (barrierDone = true));
    h.releaseOne();
    await c;
    for (let i = 0; i < 5; i++) await turn();
    expect(barrierDone).toBe(false);
    h.release();
    await Promise.all([d, barrier]);
    expect(h.committed).toEqual(['u1', 'b1', 'c1', 'd1']);
  });
});
