import { Button, Group, SegmentedControl } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DcaBotView } from '@bytx/contract';
import { errorMessage } from '../../../shared/api/client';
import { BacktestButton } from '../../../shared/backtest/BacktestButton';
import {
  ActiveBotsList,
  BotScreenBody,
  BotScreenHead,
  BotsFooter,
  NoSession,
} from '../../../shared/bots/BotScreen';
import { BotDialogs, botDialogOpen, useBotDialogs } from '../../../shared/bots/BotDialogs';
import { LeverageDialog } from '../../../shared/bots/LeverageDialog';
import {
  useClosedRealised,
  useDebouncedSlTp,
  useFillToasts,
  useNow,
  usePagedList,
  usePolling,
  useStartFlow,
  useStopFlow,
  withOptimistic,
} from '../../../shared/bots/hooks';
import { slTpProblem } from '../../../shared/bots/slTp';
import { HelpText, TermsHelp } from '../../../shared/bots/FormHelp';
import {
  StartFormFields,
  StartFormShell,
  StartFormSubmit,
  useStartForm,
} from '../../../shared/bots/StartForm';
import { useSession, userIdOf } from '../../../shared/session/session';
import { useAfterFirstPaint } from '../../../shared/ui/afterFirstPaint';
import { useConfirm } from '../../../shared/ui/ConfirmDialog';
import { commaToDot, dcaApi, type StartBotInput } from '../api/dca';
import { ActiveBotRow } from './ActiveBotRow';
import { DCA_SCREEN as SCREEN } from './screen';

const BOTS_PER_PAGE = 2;

/**
 * Grid Bot DCA dashboard (spec part 2 §2 "Bot start screen", DCA dashboard at /bot-dca). Its nav and
 * title render first, the screen under them once they have painted (shared/ui/afterFirstPaint.ts): the
 * title is the page's largest text, and on a phone it waited for the whole screen's render and its
 * first queries (issue 39, Lighthouse's LCP).
 */
export function BotDcaPage() {
  const { t } = useTranslation();
  const { user, checking } = useSession();
  const painted = useAfterFirstPaint();
  if (!user) return <NoSession checking={checking} />;
  return (
    <BotScreenHead screen={SCREEN} title={t('grid-dca.title')} activeNav="dca">
      {painted && <BotDcaScreen />}
    </BotScreenHead>
  );
}

/** The screen under the title: the start form, the active bots, the footer and the dialogs. */
function BotDcaScreen() {
  const { t } = useTranslation();
  const { user } = useSession();
  const qc = useQueryClient();
  const userId = userIdOf(user);

  // --- form state: the shared start form, plus leverage and direction off Spot ---------------------
  const form = useStartForm(SCREEN, userId, !!user);
  const { exchange, pair, apartado } = form;
  const [leverage, setLeverage] = useState(1);
  const [direction, setDirection] = useState<'LONG' | 'SHORT'>('LONG');

  // --- dialogs ------------------------------------------------------------------------------------
  const [leverageOpen, setLeverageOpen] = useState(false);
  const startFlow = useStartFlow<DcaBotView>(SCREEN);
  const stopFlow = useStopFlow<DcaBotView>(SCREEN, {
    stop: (b, mode) => dcaApi.stop(userId, b.exchange, b.symbol, mode),
  });
  const dialogs = useBotDialogs<DcaBotView>();
  const dialogOpen = leverageOpen || botDialogOpen(form, startFlow, stopFlow, dialogs);
  const poll = usePolling(dialogOpen);

  // --- server data --------------------------------------------------------------------------------
  const botsQ = useQuery({
    queryKey: ['dca', 'bots', userId],
    queryFn: () => dcaApi.activeBots(userId),
    enabled: !!user,
    refetchInterval: poll(5_000),
  });
  const pricesQ = useQuery({
    queryKey: ['dca', 'prices', userId],
    queryFn: () => dcaApi.prices(userId),
    enabled: !!user,
    refetchInterval: 10_000,
  });

  const bots = useMemo(
    () => withOptimistic(botsQ.data?.bots ?? [], startFlow.optimistic),
    [botsQ.data, startFlow.optimistic],
  );
  const paged = usePagedList(bots, BOTS_PER_PAGE);
  const clock = useNow();
  const activeCount = botsQ.data?.bots.length ?? 0;
  const realised = useClosedRealised(SCREEN, dcaApi.closedBots, activeCount, botsQ.isSuccess);
  // A fill toast when a poll shows a lot opened (a ladder buy filled) or closed (its take profit).
  useFillToasts(
    botsQ.data?.bots,
    (b) => b.id,
    (before, now) =>
      now.open_lots > before.open_lots
        ? t('bots.toasts.buyFilled', { symbol: now.symbol, exchange: now.exchange })
        : now.open_lots < before.open_lots && now.pnl !== before.pnl
          ? t('bots.toasts.tpFilled', {
              symbol: now.symbol,
              exchange: now.exchange,
              pnl: (now.pnl - before.pnl).toFixed(2),
            })
          : null,
  );
  const priceOf = (b: DcaBotView) =>
    pricesQ.data?.find((p) => p.exchange === b.exchange && p.symbol === b.symbol)?.price ?? null;

  // --- SL / TP+ edits: 30 s countdown, every 5 s send what was edited more than 30 s ago ---------
  // A value the row marks wrong (slTp.ts) is not sent; Update sends the rest at once.
  const problemOf = (b: DcaBotView, field: 'sl' | 'tpPlus', raw: string) =>
    slTpProblem(field, raw, priceOf(b), b.direction);
  const slTp = useDebouncedSlTp(
    bots,
    (b, field, value) =>
      field === 'sl'
        ? dcaApi.updateSl(userId, b.exchange, b.symbol, value)
        : dcaApi.updateTpPlus(userId, b.exchange, b.symbol, value),
    (b, field, raw) => problemOf(b, field, raw) !== null,
  );
  const updateNow = async (b: DcaBotView) => {
    const e = slTp.editOf(b);
    if (problemOf(b, 'sl', e.sl) || problemOf(b, 'tpPlus', e.tpPlus)) {
      notifications.show({ color: 'red', message: t('bots.slTp.fix') });
      return;
    }
    if (!slTp.pending(b)) {
      notifications.show({ message: t('bots.slTp.nothing') });
      return;
    }
    if (await slTp.sendNow(b)) notifications.show({ color: 'green', message: t('bots.slTp.saved') });
  };

  // --- start ----------------------------------------------------------------------------------------
  /** What the start call sends (and a backtest of these settings). */
  const startInput = (symbol: string): StartBotInput => {
    // SHORT and leverage exist off Spot only; a Spot bot is always LONG.
    const derivatives = apartado !== 'Spot';
    return {
      symbol,
      amount: commaToDot(form.amount),
      tp: form.tp,
      separacion: form.sep,
      os: form.os,
      exchange,
      user_id: userId,
      apartado,
      direction: derivatives ? direction : 'LONG',
      ...(derivatives ? { leverage } : {}),
    };
  };
  const startBot = async () => {
    const ok = await form.check();
    if (!ok) return;
    const { symbol, amt } = ok;
    // SHORT and leverage exist off Spot only; a Spot bot is always LONG.
    const derivatives = apartado !== 'Spot';
    const dir = derivatives ? direction : 'LONG';
    const opt: DcaBotView = {
      id: `optimistic-${symbol}`,
      exchange,
      symbol,
      monto: amt,
      tp_pct: Number(form.tp),
      os: Number(form.os),
      sep_pct: Number(form.sep),
      precio: 0,
      sl: null,
      tp_plus: null,
      ra_enabled: false,
      apartado,
      leverage: derivatives ? leverage : 1,
      direction: dir,
      status: 'active',
      pnl: 0,
      open_lots: 0,
      waiting_buys: 0,
      range_low: 0,
      range_high: 0,
      started_at: new Date().toISOString(),
      stop_reason: null,
      problem: null,
      reason: null,
    };
    await startFlow.run(opt, () => dcaApi.start(startInput(symbol)));
  };

  // --- Grid Bot DCA's own controls: relocate, RA, leverage --------------------------------------------
  const [confirm, confirmDialog] = useConfirm();
  const relocate = async (b: DcaBotView) => {
    const question = t('grid-dca.relocate.confirm', { symbol: b.symbol, exchange: b.exchange });
    if (!(await confirm(question, { confirmLabel: t('grid-dca.bots.relocate') }))) return;
    try {
      const r = await dcaApi.relocate(userId, b.exchange, b.symbol);
      if (r.success) notifications.show({ color: 'green', message: t('grid-dca.relocate.success') });
      else
        notifications.show({
          color: 'red',
          message: t('grid-dca.relocate.failure', { reason: r.error ?? t('grid-dca.relocate.unknown') }),
        });
      await qc.invalidateQueries({ queryKey: ['dca', 'bots'] });
    } catch (err) {
      const reason = errorMessage(err, '');
      notifications.show({
        color: 'red',
        message: reason ? t('grid-dca.relocate.failure', { reason }) : t('grid-dca.relocate.network'),
      });
    }
  };

  const toggleRa = async (b: DcaBotView, enabled: boolean) => {
    try {
      const r = await dcaApi.raToggle(userId, b.exchange, b.symbol, enabled);
      if (!r.success) notifications.show({ color: 'red', message: t('grid-dca.errors.ra') });
      await qc.invalidateQueries({ queryKey: ['dca', 'bots'] });
    } catch (err) {
      notifications.show({ color: 'red', message: t('bots.errors.network', { message: errorMessage(err) }) });
    }
  };

  const confirmLeverage = useCallback(
    (n: number) => {
      setLeverageOpen(false);
      setLeverage(n);
      void dcaApi
        .setLeverage(userId, exchange, pair.trim().toUpperCase(), n)
        .catch((err: unknown) => console.error('set_leverage failed', err));
      notifications.show({ message: t('bots.leverage.toast', { n }), autoClose: 3_000 });
    },
    [exchange, pair, t, userId],
  );

  const totalPnl = bots.reduce((s, b) => s + (Number.isFinite(b.pnl) ? b.pnl : 0), 0);

  return (
    <BotScreenBody
      form={
        <StartFormShell testId="dca-form">
          <StartFormFields screen={SCREEN} form={form} />
          {apartado !== 'Spot' && (
            <div>
              <Group>
                <Button
                  variant="default"
                  onClick={() => {
                    if (!exchange) return form.fail(t('bots.leverage.noExchange'));
                    setLeverageOpen(true);
                  }}
                  aria-describedby="dca-leverage-help"
                  data-testid="dca-leverage-btn"
                >
                  {t('bots.leverage.button', { n: leverage })}
                </Button>
                <SegmentedControl
                  value={direction}
                  onChange={(v) => setDirection(v)}
                  data={['LONG', 'SHORT']}
                  aria-label={t('grid-dca.form.direction')}
                  aria-describedby="dca-direction-help"
                  data-testid="dca-direction"
                />
              </Group>
              <HelpText id="dca-leverage-help">{t('bots.help.leverage')}</HelpText>
              <HelpText id="dca-direction-help">{t('bots.help.direction')}</HelpText>
            </div>
          )}
          <StartFormSubmit
            screen={SCREEN}
            form={form}
            onStart={() => void startBot()}
            beside={
              <BacktestButton
                kind="grid-dca"
                getParams={() => ({ ...startInput(pair.trim().toUpperCase()) })}
                exchange={exchange}
                symbol={pair.trim().toUpperCase()}
                onStart={() => void startBot()}
              />
            }
          />
          <TermsHelp
            summary={t('bots.help.terms')}
            terms={(['ra', 'sl', 'tpPlus', 'range'] as const).map((k) => t(`grid-dca.help.terms.${k}`))}
            testId="dca-terms"
          />
        </StartFormShell>
      }
      list={
        <ActiveBotsList count={bots.length} page={paged.page} pages={paged.pages} onPage={paged.setPage}>
          {paged.shown.map((b) => (
            <ActiveBotRow
              key={b.id}
              bot={b}
              price={priceOf(b)}
              edit={slTp.editOf(b)}
              now={slTp.now}
              clock={clock}
              optimistic={b.id.startsWith('optimistic-')}
              onEdit={(f, v) => slTp.onEdit(b, f, v)}
              onUpdate={() => void updateNow(b)}
              onRa={(en) => void toggleRa(b, en)}
              onHistory={() => dialogs.setHistory(b)}
              onPending={() => dialogs.setPending(b)}
              onRelocate={() => void relocate(b)}
              onStop={() => stopFlow.ask(b)}
              onEvents={() => dialogs.setEvents(b)}
            />
          ))}
        </ActiveBotsList>
      }
      footer={
        <BotsFooter
          screen={SCREEN}
          totalPnl={totalPnl}
          activeCount={activeCount}
          realised={realised}
          onHistory={() => dialogs.setClosed(true)}
        />
      }
    >
      {confirmDialog}
      <BotDialogs
        screen={SCREEN}
        form={form}
        start={startFlow}
        stop={stopFlow}
        dialogs={dialogs}
        load={{
          history: (b, page) => dcaApi.history(b.id, page),
          pending: (b, page) => dcaApi.pendingOrders(userId, b.exchange, b.symbol, page),
          events: (b) => dcaApi.events(b.id),
          closed: dcaApi.closedBots,
        }}
      />
      {leverageOpen && (
        <LeverageDialog
          prefix="dca"
          opened={leverageOpen}
          value={leverage}
          onCancel={() => setLeverageOpen(false)}
          onConfirm={confirmLeverage}
        />
      )}
    </BotScreenBody>
  );
}
