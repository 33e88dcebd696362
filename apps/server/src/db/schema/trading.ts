import { pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** The pairs a user starred on the spot and futures screens (migration 0600), e.g. 'BTC/USDT'. */
export const spotFavorites = pgTable(
  'spot_favorites',
  {
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    symbol: text('symbol').notNull(),
    createdAt: ts('created_at').notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.symbol] })],
);
