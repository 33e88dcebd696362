import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app';
import type { Config } from '../src/config';
import { freshPostgresUrl, PG_SKIP_REASON, PG_URL, testConfig } from './helpers';

/** Writes through the HTTP API, closes the whole app, starts a new one on the same data, reads back. */
async function survivesRestart(config: Config) {
  const first = await buildApp(config, { logger: false });
  const created = await first.app.inject({
    method: 'POST',
    url: '/api/forum/posts',
    payload: { user: 'Anonymous', content: 'still here after a restart' },
  });
  expect(created.statusCode).toBeLessThan(300);
  await first.app.close();

  const second = await buildApp(config, { logger: false });
  try {
    const res = await second.app.inject({ method: 'GET', url: '/api/forum/posts?page=1' });
    return res.json<{ posts: { content: string }[] }>().posts.map((p) => p.content);
  } finally {
    await second.app.close();
  }
}

describe('data written through the server survives a restart', () => {
  it('on the embedded PGlite in DATA_DIR', async () => {
    expect(await survivesRestart(testConfig())).toContain('still here after a restart');
  });

  if (!PG_URL) console.log(`[skip] ${PG_SKIP_REASON}`);
  it.skipIf(!PG_URL)('on PostgreSQL (DATABASE_URL)', async () => {
    const pg = await freshPostgresUrl();
    try {
      expect(await survivesRestart(testConfig({ DATABASE_URL: pg.url }))).toContain(
        'still here after a restart',
      );
    } finally {
      await pg.drop();
    }
  });
});
