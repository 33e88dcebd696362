import type { BotRow, NewBotRow } from '../bots.repository';
import type { KindPluginOptions } from '../kind-plugin';

/** How long the lease a just-created bot is inserted with lasts (ms): until the runner's own heartbeat. */
export const START_LEASE_MS = 30_000;

/** The start cap an insert respects (BotsService.startCap: MAX_BOTS_PER_USER, leftover kinds not counted). */
export type StartCap = NonNullable<Parameters<KindPluginOptions['repo']['insertBot']>[1]>;

/** A new bot of a kind: the row without its owner's lease and status, which `insertLeased` sets. */
export type NewKindBot = Omit<NewBotRow, 'status' | 'leasedBy' | 'leaseUntil'> & { id: string };

/**
 * Inserts an active bot, leased by this process for 30 s when it runs bots (BOT_RUNNER), so that no
 * other runner takes it before it is launched here. With `cap`, only within the user's bot count.
 */
export function insertLeased(
  { ctx, repo, runner }: Pick<KindPluginOptions, 'ctx' | 'repo' | 'runner'>,
  bot: NewKindBot,
  cap?: StartCap,
): Promise<BotRow> {
  const run = ctx.config.BOT_RUNNER;
  return repo.insertBot(
    {
      ...bot,
      status: 'active',
      leasedBy: run ? runner.deps.runnerId : null,
      leaseUntil: run ? new Date(Date.now() + START_LEASE_MS) : null,
    },
    cap,
  );
}

/** A start's own texts (each kind's contract messages). */
export interface StartTexts {
  /** 409 when the insert meets the one-active-bot-per-pair index (`{exchange}`, `{symbol}`). */
  alreadyActive: string;
  /** The error of a start that cannot trade (`{reason}`). */
  startFailed: string;
}

/**
 * The create-and-launch sequence every kind's start ends with, once its own checks passed: insert the
 * bot leased by this process (`insertLeased`, within the start cap unless `cap` is null), turn a unique
 * violation into the spec's 409 (a concurrent start of the same pair, or of the same derivatives
 * market), let the kind store what belongs with the bot (`afterInsert`; on its failure the kind undoes
 * its insert), then launch it (BotsService.launch: run until its first decisions are carried out, a
 * start that cannot trade ends the bot with `startFailed`). Answers the bot row as it is after launch.
 */
export async function createAndLaunch(
  opts: Pick<KindPluginOptions, 'ctx' | 'repo' | 'runner' | 'bots'>,
  bot: NewKindBot,
  texts: StartTexts,
  more: { cap?: StartCap | null; afterInsert?: (row: BotRow) => Promise<void> } = {},
): Promise<BotRow> {
  const { bots } = opts;
  const cap = more.cap === undefined ? bots.startCap() : (more.cap ?? undefined);
  let row: BotRow;
  try {
    row = await insertLeased(opts, bot, cap);
  } catch (err) {
    const type = bot.marketType ?? 'Spot';
    throw bots.uniqueViolation(err, bot.exchange, bot.symbol, type, texts.alreadyActive) ?? err;
  }
  if (more.afterInsert) await more.afterInsert(row);
  const after = await bots.launch(bot.id, texts.startFailed);
  return after ?? row;
}
