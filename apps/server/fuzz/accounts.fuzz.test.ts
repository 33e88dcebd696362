import { fuzzGroup } from './harness';

/** The fuzz tier's accounts group: sign-up, login, 2FA, sessions, account, forum, health and config (harness.ts, docs/limits.md). */
await fuzzGroup('accounts');
