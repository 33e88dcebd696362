/* eslint-disable @typescript-eslint/no-explicit-any -- JSON answers read loosely */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SIGNAL_LIMITS, SIGNAL_REASONS } from '@bytx/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailsTo, readLatestCode } from '../../../e2e/helpers/accounts';
import { type Database } from '../src/db/client';
import { MIGRATIONS_DIR } from '../src/db/migrate';
import { sealContext } from '../src/lib/crypto';
import { addressKey, parseSignalTime } from '../src/modules/bots/kinds/signal/guards';
import { apiCaller, createTestUser, makeTestApp, type TestApp } from './helpers';
import { openTestDatabase } from './db-snapshot';

type User = Awaited<ReturnType<typeof createTestUser>>;
type Json = Record<string, any>;

const EX = 'binance';
const PUBLIC_URL = 'https://bots.example.org';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Issue 37 points 4, 9 and 13 (webhook half) on the Signal bot: forged requests cannot lock the owner
 * out, they are limited per address; a signal's time bounds replays; the secret is shown once, stored as
 * a hash, rotated (after a recent authentication) and replaced when the password changes; the webhook
 * URL is on PUBLIC_URL whatever the Host header says.
 */
describe('Signal bot webhook security', () => {
  let database: Database;
  let t: TestApp;
  let alice: User;
  let bob: User;
  const call = apiCaller(() => t.app);
  const create = (u: User, symbol: string) =>
    call(u, 'POST', '/api/signalbot/bots', { exchange: EX, symbol, amount: 20, max_position: 100 });
  /** Posts a JSON signal to a bot's webhook from an address. */
  const hook = async (id: string, body: unknown, ip = '127.0.0.1') => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/signalbot/webhook/${id}`,
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
      remoteAddress: ip,
    });
    return { status: res.statusCode, body: res.json<Json>(), headers: res.headers };
  };
  const q = async (text: string, params: unknown[] = []) => t.ctx.database.sql.query(text, params);
  const rowsOf = async (id: string) =>
    q('SELECT status, reason, reason_text, source_ip FROM signal_events WHERE bot_id = $1 ORDER BY id', [id]);
  const view = async (u: User, id: string) =>
    ((await call(u, 'GET', '/api/signalbot/bots')).body.bots as Json[]).find((b) => b.id === id)!;

  /** alice: BTC/USDT and ETH/USDT; bob: BTC/USDT and ETH/USDT. */
  const bots: Record<string, { id: string; secret: string; symbol: string }> = {};

  beforeAll(async () => {
    database = await openTestDatabase();
    t = await makeTestApp({ BOT_RUNNER: '1', SIMULATOR_CONTROL: '1', PUBLIC_URL }, { database });
    alice = await createTestUser(t);
    bob = await createTestUser(t);
    for (const u of [alice, bob]) {
      const r = await call(u, 'POST', '/api/conectar_exchange', {
        exchange: EX,
        mode: 'paper',
        user_id: u.email,
      });
      expect(r.status).toBe(200);
    }
    for (const [symbol, price] of [
      ['BTC/USDT', 100_000],
      ['ETH/USDT', 3_000],
    ] as const) {
      const r = await call(null, 'POST', '/api/dev/market/price', { exchange: EX, symbol, price });
      expect(r.status).toBe(200);
    }
    for (const [name, u, symbol] of [
      ['aBtc', alice, 'BTC/USDT'],
      ['aEth', alice, 'ETH/USDT'],
      ['bBtc', bob, 'BTC/USDT'],
      ['bEth', bob, 'ETH/USDT'],
    ] as const) {
      const r = await create(u, symbol);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      bots[name] = { id: r.body.id, secret: r.body.secret, symbol };
    }
  });
  afterAll(async () => {
    await t?.close();
    await database?.close();
  });

  it('30 forged requests do not lock the owner out; forged ones get 429 after the limit', async () => {
    const b = bots.aEth!;
    const attacker = '203.0.113.7';
    const forged = { secret: 'x'.repeat(43), action: 'close', symbol: b.symbol };
    const answers: number[] = [];
    for (let i = 0; i < 30; i++) answers.push((await hook(b.id, forged, attacker)).status);
    // The first 20 are wrong secrets (401, logged); then 429 with Retry-After.
    const limit = SIGNAL_LIMITS.failuresPerBotAddress;
    expect(answers.slice(0, limit)).toEqual(Array<number>(limit).fill(401));
    expect(answers.slice(limit)).toEqual(Array<number>(30 - limit).fill(429));
    const limited = await hook(b.id, forged, attacker);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('too_many_failures');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Logged: 20 wrong secrets and one row for the refused flood.
    const rows = await rowsOf(b.id);
    expect(rows.filter((r) => r.reason === 'wrong_secret')).toHaveLength(limit);
    expect(rows.filter((r) => r.reason === 'too_many_failures')).toHaveLength(1);
    expect(rows.every((r) => r.source_ip === attacker)).toBe(true);

    // The owner's real close is accepted, from its own address and even from the attacker's (every
    // TradingView alert comes from a few shared addresses).
    const owner = await hook(b.id, { secret: b.secret, action: 'close', symbol: b.symbol, id: 'o-1' });
    expect(owner.status, JSON.stringify(owner.body)).toBe(200);
    expect(owner.body).toMatchObject({ success: true, status: 'skipped', error: 'no_position' });
    const shared = await hook(
      b.id,
      { secret: b.secret, action: 'close', symbol: b.symbol, id: 'o-2' },
      attacker,
    );
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    // Another address with a wrong secret is still told 401 (the limit is per address).
    expect((await hook(b.id, forged, '198.51.100.9')).status).toBe(401);
  });

  it('limits wrong secrets per address across bots (IPv6 counted per /64)', async () => {
    const forged = (b: { id: string; symbol: string }) => ({
      secret: 'nope',
      action: 'buy',
      symbol: b.symbol,
    });
    // 60 a minute per address: 20 on each of three bots from addresses of one /64, then the fourth bot.
    const ips = ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff::3'];
    for (const [i, name] of (['aBtc', 'bBtc', 'bEth'] as const).entries()) {
      for (let k = 0; k < SIGNAL_LIMITS.failuresPerBotAddress; k++) {
        expect((await hook(bots[name]!.id, forged(bots[name]!), ips[i])).status).toBe(401);
      }
    }
    const fourth = await hook(bots.aEth!.id, forged(bots.aEth!), '2001:db8:1:2::abcd');
    expect(fourth.status).toBe(429);
    expect(fourth.body.message).toBe(
      SIGNAL_REASONS.too_many_failures
        .replace('{max}', String(SIGNAL_LIMITS.failuresPerAddress))
        .replace('{retry}', String(fourth.headers['retry-after'])),
    );
    // Another /64 is not counted with it.
    expect((await hook(bots.aEth!.id, forged(bots.aEth!), '2001:db8:1:3::1')).status).toBe(401);
    // The owners' signals still go through.
    for (const name of ['aBtc', 'bBtc', 'bEth'] as const) {
      const b = bots[name]!;
      const r = await hook(b.id, { secret: b.secret, action: 'close', symbol: b.symbol }, ips[0]);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
  });

  it('takes a signal that carries a time only within 5 minutes of the clock, and logs why not', async () => {
    const b = bots.bEth!;
    const sig = (extra: Json) => ({ secret: b.secret, action: 'close', symbol: b.symbol, ...extra });
    const now = Date.now();
    const stale = new Date(now - 10 * 60_000).toISOString();
    const r = await hook(b.id, sig({ time: stale, id: 'replay-1' }));
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('stale_time');
    expect(r.body.message).toMatch(
      /^The signal's time \(.+\) is 60\d s from the server's clock, more than 300 s/,
    );
    const [row] = await q(
      'SELECT status, reason, reason_text FROM signal_events WHERE bot_id = $1 ORDER BY id DESC LIMIT 1',
      [b.id],
    );
    expect(row).toMatchObject({ status: 'rejected', reason: 'stale_time', reason_text: r.body.message });
    // In the future as well; `timestamp` is read like `time`.
    const ahead = await hook(b.id, sig({ timestamp: Math.floor((now + 10 * 60_000) / 1000) }));
    expect(ahead.body.error).toBe('stale_time');
    for (const bad of ['yesterday', '2026-01-31T12:00:00', -5, '12:00']) {
      const w = await hook(b.id, sig({ time: bad }));
      expect(w.status, String(bad)).toBe(400);
      expect(w.body.error, String(bad)).toBe('bad_time');
    }
    // Within the window: ISO with Z or an offset, epoch seconds, epoch milliseconds, digits as text.
    for (const good of [
      new Date(now - 60_000).toISOString(),
      new Date(now).toISOString().replace(/\.\d+Z$/, '+00:00'),
      Math.floor(now / 1000),
      now,
      String(now),
    ]) {
      const w = await hook(b.id, sig({ time: good }));
      expect(w.status, `${String(good)}: ${JSON.stringify(w.body)}`).toBe(200);
    }
    // No row was recorded for execution from the refused ones.
    const recorded = await q(
      "SELECT count(*)::int AS n FROM signal_events WHERE bot_id = $1 AND reason = 'stale_time' AND seq IS NOT NULL",
      [b.id],
    );
    expect(recorded[0]?.n).toBe(0);
  });

  it('reads the time and the address forms as documented', () => {
    expect(parseSignalTime(undefined)).toBeNull();
    expect(parseSignalTime('')).toBeNull();
    expect(parseSignalTime('2026-01-31T12:00:00Z')).toBe(Date.UTC(2026, 0, 31, 12));
    expect(parseSignalTime('2026-01-31T13:00:00+01:00')).toBe(Date.UTC(2026, 0, 31, 12));
    expect(parseSignalTime(1_769_860_800)).toBe(1_769_860_800_000);
    expect(parseSignalTime(1_769_860_800_000)).toBe(1_769_860_800_000);
    expect(parseSignalTime(9e15)).toBe('bad');
    expect(parseSignalTime(true)).toBe('bad');
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:0:0:3')).toBe('2001:db8:1:2::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
  });

  it('never reads a secret back; the database holds only its hash; rotation needs a recent login', async () => {
    const b = bots.aBtc!;
    // No read answers it.
    const reads = [
      await call(alice, 'GET', '/api/signalbot/bots'),
      await call(alice, 'GET', `/api/signalbot/bots/${b.id}/signals?per_page=100`),
      await call(alice, 'GET', `/api/bots/${b.id}/events`),
    ];
    for (const r of reads) {
      expect(r.status).toBe(200);
      expect(JSON.stringify(r.body)).not.toContain(b.secret);
    }
    expect((await call(alice, 'GET', `/api/signalbot/bots/${b.id}/secret`)).status).toBe(404);
    // No table holds it in clear: only sha256(secret) in signal_bots.
    for (const table of ['signal_bots', 'signal_events', 'bots', 'bot_events']) {
      const rows = await q(`SELECT row_to_json(x)::text AS j FROM ${table} x`);
      for (const r of rows) expect(String(r.j), table).not.toContain(b.secret);
    }
    const [stored] = await q('SELECT secret_hash, secret_enc FROM signal_bots WHERE bot_id = $1', [b.id]);
    expect(stored).toEqual({ secret_hash: sha256(b.secret), secret_enc: null });

    // A session older than 5 minutes without a password confirmation: 403 reauth_required.
    await q("UPDATE sessions SET created_at = now() - interval '10 minutes' WHERE user_id = $1", [alice.id]);
    const stale = await call(alice, 'POST', `/api/signalbot/bots/${b.id}/secret`);
    expect(stale.status).toBe(403);
    expect(stale.body.error_code).toBe('reauth_required');
    await q('UPDATE sessions SET created_at = now() WHERE user_id = $1', [alice.id]);

    const rotated = await call(alice, 'POST', `/api/signalbot/bots/${b.id}/secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated.body.secret).not.toBe(b.secret);
    const old = await hook(b.id, { secret: b.secret, action: 'close', symbol: b.symbol });
    expect(old.body.error).toBe('wrong_secret');
    const fresh = await hook(b.id, { secret: rotated.body.secret, action: 'close', symbol: b.symbol });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    b.secret = rotated.body.secret;
    const events = (await call(alice, 'GET', `/api/bots/${b.id}/events`)).body.events as Json[];
    expect(events.filter((e) => e.code === 'signal_secret_rotated')).toMatchObject([
      { level: 'warn', params: { reason: 'user' } },
    ]);
    expect((await view(alice, b.id)).secret_rotated_reason).toBe('user');
  });

  it('a password change replaces every secret of the user, with an event and a mail', async () => {
    expect((await call(alice, 'POST', '/api/enviar_codigo_cambio_password', {})).status).toBe(200);
    const code = await readLatestCode(t.ctx.config.mailOutboxDir, alice.email);
    const changed = await call(alice, 'POST', '/api/cambiar_password', {
      nueva_password: 'violet-harbor-73-signal',
      email_code: code,
    });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    for (const name of ['aBtc', 'aEth'] as const) {
      const b = bots[name]!;
      const old = await hook(b.id, { secret: b.secret, action: 'close', symbol: b.symbol });
      expect(old.status, name).toBe(401);
      const v = await view(alice, b.id);
      expect(v.secret_rotated_reason).toBe('password_change');
      expect(Date.now() - Date.parse(String(v.secret_rotated_at))).toBeLessThan(60_000);
      const events = (await call(alice, 'GET', `/api/bots/${b.id}/events`)).body.events as Json[];
      expect(events.find((e) => e.code === 'signal_secret_rotated')).toMatchObject({
        level: 'warn',
        params: { reason: 'password_change' },
      });
    }
    // bob's bots are untouched.
    const bb = bots.bBtc!;
    expect((await hook(bb.id, { secret: bb.secret, action: 'close', symbol: bb.symbol })).status).toBe(200);
    expect((await view(bob, bb.id)).secret_rotated_reason).toBeNull();
    const mail = mailsTo(t.ctx.config.mailOutboxDir, alice.email).find((m) =>
      m.subject.includes('Signal bots'),
    );
    expect(mail?.text).toContain('BTC/USDT (binance)');
    expect(mail?.text).toContain('ETH/USDT (binance)');
    expect(mail?.text).not.toContain(bots.aBtc!.secret);
    // Rotating (the session that changed the password stays logged in) gives a working secret again.
    const b = bots.aBtc!;
    const rotated = await call(alice, 'POST', `/api/signalbot/bots/${b.id}/secret`);
    expect(rotated.status).toBe(200);
    const ok = await hook(b.id, { secret: rotated.body.secret, action: 'close', symbol: b.symbol });
    expect(ok.status).toBe(200);
    b.secret = rotated.body.secret;
  });

  it('shows the webhook URL on PUBLIC_URL, whatever the Host header says', async () => {
    const forged = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' };
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/signalbot/bots',
      headers: { ...bob.auth, ...forged },
      payload: { exchange: EX, symbol: 'ETH/USDT', amount: 20, max_position: 100 },
    });
    // bob already has an active ETH/USDT bot: the list is what shows the URLs.
    expect(res.statusCode).toBe(409);
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/signalbot/bots',
      headers: { ...bob.auth, ...forged },
    });
    const urls = (list.json<Json>().bots as Json[]).map((b) => b.webhook_url as string);
    expect(urls.sort()).toEqual(
      [bots.bBtc!.id, bots.bEth!.id].map((id) => `${PUBLIC_URL}/api/signalbot/webhook/${id}`).sort(),
    );
    // Create as well: stop bob's ETH bot and create it again with the forged Host.
    expect((await call(bob, 'POST', `/api/signalbot/bots/${bots.bEth!.id}/stop`, {})).status).toBe(200);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/signalbot/bots',
      headers: { ...bob.auth, ...forged },
      payload: { exchange: EX, symbol: 'ETH/USDT', amount: 20, max_position: 100 },
    });
    expect(created.statusCode, created.body).toBe(200);
    const body = created.json<Json>();
    expect(body.webhook_url).toBe(`${PUBLIC_URL}/api/signalbot/webhook/${body.id}`);
    expect(body.bot.webhook_url).toBe(body.webhook_url);
    expect(created.body).not.toContain('evil.example');
  });

  it('converts secrets stored before hashing: sealed ones on start, plain ones by the migration', async () => {
    const b = bots.bBtc!;
    // A row as migration 0308 left it: the secret sealed with the master key.
    await q('UPDATE signal_bots SET secret_hash = NULL, secret_enc = $2 WHERE bot_id = $1', [
      b.id,
      t.ctx.secretBox.seal(b.secret, sealContext.signalWebhook(b.id)),
    ]);
    // Still accepted before the conversion.
    expect((await hook(b.id, { secret: b.secret, action: 'close', symbol: b.symbol })).status).toBe(200);
    await t.close();
    t = await makeTestApp({ BOT_RUNNER: '1', SIMULATOR_CONTROL: '1', PUBLIC_URL }, { database });
    const [after] = await q('SELECT secret_hash, secret_enc FROM signal_bots WHERE bot_id = $1', [b.id]);
    expect(after).toEqual({ secret_hash: sha256(b.secret), secret_enc: null });
    expect((await hook(b.id, { secret: b.secret, action: 'close', symbol: b.symbol })).status).toBe(200);

    // A plain stored secret: the migration's own UPDATE hashes it.
    const migration = fs.readFileSync(path.join(MIGRATIONS_DIR, '0830_signal_secret_hash.sql'), 'utf8');
    const update = /UPDATE signal_bots[\s\S]*?;/.exec(migration)?.[0];
    expect(update).toBeDefined();
    await q('UPDATE signal_bots SET secret_hash = NULL, secret_enc = $2 WHERE bot_id = $1', [b.id, b.secret]);
    await q(update!);
    const [plain] = await q('SELECT secret_hash, secret_enc FROM signal_bots WHERE bot_id = $1', [b.id]);
    expect(plain).toEqual({ secret_hash: sha256(b.secret), secret_enc: null });
    expect((await hook(b.id, { secret: b.secret, action: 'close', symbol: b.symbol })).status).toBe(200);
  });
});
