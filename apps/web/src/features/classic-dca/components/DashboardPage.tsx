import { Group, NativeSelect, Switch, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { CLASSIC_DCA_MESSAGES, TP_VNC_OPTIONS, type ClassicBotView } from '@bytx/contract';
import { ApiError, errorMessage } from '../../../shared/api/client';
import { BacktestButton } from '../../../shared/backtest/BacktestButton';
import { ActiveBotsList, BotScreenFrame, BotsFooter, NoSession } from '../../../shared/bots/BotScreen';
import { BotDialogs, botDialogOpen, useBotDialogs } from '../../../shared/bots/BotDialogs';
import {
  RESEND_MS,
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
import { TermsHelp } from '../../../shared/bots/FormHelp';
import {
  StartFormFields,
  StartFormShell,
  StartFormSubmit,
  useStartForm,
} from '../../../shared/bots/StartForm';
import { useSession, userIdOf } from '../../../shared/session/session';
import { commaToDot, dashboardApi, pairKey, type BotUpdate, type StartClassicInput } from '../api/dashboard';
import { BotRow, type BotFigures, type FundsResult } from './BotRow';
import { DASH_SCREEN as SCREEN } from './screen';

export const BOTS_PER_PAGE = 2;
/** Polling periods of spec part 2 §9. */
export const POLL_MS = { bots: 5_000, figures: 10_000, vncSlow: 60_000, resend: RESEND_MS } as const;

const DEFAULT_TP_VNC = 0.5;

/** The classic DCA bot dashboard (spec part 2 §2, the spot-bot screen variant) at /dashboard. */
export function DashboardPage() {
  const { t } = useTranslation();
  const { user, checking } = useSession();
  const qc = useQueryClient();
  const userId = userIdOf(user);

  // --- form state: the shared start form, plus R / R(OS), the trend and smart options, TP VNC ------
  const form = useStartForm(SCREEN, userId, !!user);
  const { exchange, apartado } = form;
  const [rNew, setRNew] = useState(false);
  const [rOsNew, setROsNew] = useState(false);
  const [trendFilter, setTrendFilter] = useState(true);
  const [smartAveraging, setSmartAveraging] = useState(true);
  const [tpVncNew, setTpVncNew] = useState<number>(DEFAULT_TP_VNC);

  // --- local overlays: rows removed after a stop, R / R(OS) / TP VNC choices ----------------------
  const [removed, setRemoved] = useState<Set<string>>(() => new Set());
  const [flags, setFlags] = useState<Record<string, { r?: boolean; r_os?: boolean }>>({});
  const [tpVncs, setTpVncs] = useState<Record<string, number>>({});

  // --- dialogs ------------------------------------------------------------------------------------
  const startFlow = useStartFlow<ClassicBotView>(SCREEN);
  const stopFlow = useStopFlow<ClassicBotView>(SCREEN, {
    stop: (b, mode) => dashboardApi.stop(userId, b.exchange, b.symbol, mode),
    // R and R(OS) are cleared locally before stopping (spec part 2 §4).
    beforeStop: (b) => setFlags((p) => ({ ...p, [b.id]: { r: false, r_os: false } })),
    onStopped: (b) => setRemoved((s) => new Set(s).add(b.id)),
  });
  const dialogs = useBotDialogs<ClassicBotView>();
  const dialogOpen = botDialogOpen(form, startFlow, stopFlow, dialogs);
  const poll = usePolling(dialogOpen);

  // --- server data --------------------------------------------------------------------------------
  const botsQ = useQuery({
    queryKey: ['dashboard', 'bots', userId],
    queryFn: () => dashboardApi.activeBots(userId),
    enabled: !!user,
    refetchInterval: poll(POLL_MS.bots),
  });
  const serverBots = useMemo(() => botsQ.data?.bots ?? [], [botsQ.data]);
  const refs = useMemo(
    () => serverBots.map((b) => ({ symbol: b.symbol, exchange: b.exchange })),
    [serverBots],
  );
  const refsKey = refs.map(pairKey).join(',');
  const hasBots = refs.length > 0;
  const pricesQ = useQuery({
    queryKey: ['dashboard', 'prices', userId],
    queryFn: () => dashboardApi.prices(userId),
    enabled: !!user && hasBots,
    refetchInterval: poll(POLL_MS.figures),
  });
  const vncsQ = useQuery({
    queryKey: ['dashboard', 'vncs', userId, refsKey],
    queryFn: () => dashboardApi.vncs(userId, refs),
    enabled: !!user && hasBots,
    refetchInterval: poll(POLL_MS.figures),
  });
  // The extra 60 s VNC poll covers every pair of the user (no bots filter).
  const vncsAllQ = useQuery({
    queryKey: ['dashboard', 'vncs-all', userId],
    queryFn: () => dashboardApi.vncs(userId),
    enabled: !!user,
    refetchInterval: poll(POLL_MS.vncSlow),
  });
  const dcasQ = useQuery({
    queryKey: ['dashboard', 'dcas', userId, refsKey],
    queryFn: () => dashboardApi.dcas(userId, refs),
    enabled: !!user && hasBots,
    refetchInterval: poll(POLL_MS.figures),
  });
  const pnlsQ = useQuery({
    queryKey: ['dashboard', 'pnls', userId, refsKey],
    queryFn: () => dashboardApi.pnls(userId, refs),
    enabled: !!user && hasBots,
    refetchInterval: poll(POLL_MS.figures),
  });

  const bots = useMemo(
    () =>
      withOptimistic(
        serverBots.filter((b) => !removed.has(b.id)),
        startFlow.optimistic,
      ),
    [serverBots, removed, startFlow.optimistic],
  );
  const paged = usePagedList(bots, BOTS_PER_PAGE);
  const clock = useNow();
  const realised = useClosedRealised(
    SCREEN,
    dashboardApi.closedBots,
    serverBots.filter((b) => !removed.has(b.id)).length,
    !!user && botsQ.isSuccess,
  );
  // A fill toast when a poll shows the base order, a safety order or the cycle's take profit filled.
  useFillToasts(
    botsQ.data?.bots,
    (b) => b.id,
    (before, now) => {
      const at = { symbol: now.symbol, exchange: now.exchange };
      if (now.cycles > before.cycles) return t('bots.toasts.cycleClosed', at);
      if (now.safety_filled > before.safety_filled) return t('bots.toasts.safetyFilled', at);
      if (now.position_qty > 0 && before.position_qty <= 0) return t('bots.toasts.buyFilled', at);
      return null;
    },
  );

  const figuresOf = (b: ClassicBotView): BotFigures => {
    const same = (x: { exchange: string; symbol: string }) =>
      x.exchange === b.exchange && x.symbol === b.symbol;
    const dca = dcasQ.data?.dcas?.find(same);
    const pnl = pnlsQ.data?.pnls?.find((p) => same(p) && (p.kind === undefined || p.kind === 'classic-dca'));
    const vnc = vncsQ.data?.vncs?.find(same) ?? vncsAllQ.data?.vncs?.find(same);
    const price = Array.isArray(pricesQ.data) ? pricesQ.data.find(same)?.price : undefined;
    return {
      dca: dca && dca.dca !== null && Number.isFinite(dca.dca) ? dca.dca : b.dca,
      pnl: pnl && Number.isFinite(pnl.pnl) ? pnl.pnl : b.pnl,
      ttr: pnl && Number.isFinite(pnl.ttr) ? pnl.ttr : b.ttr,
      qty: vnc && Number.isFinite(vnc.qty) ? vnc.qty : b.qty,
      price: price ?? b.precio,
    };
  };

  // --- SL / TP+ edits: 30 s countdown, every 5 s send what was edited more than 30 s ago ---------
  const slTp = useDebouncedSlTp(bots, (b, field, value) =>
    dashboardApi.update(userId, b.exchange, b.symbol, field === 'sl' ? { sl: value } : { tp_plus: value }),
  );

  // --- per-bot controls -----------------------------------------------------------------------------
  const flagOf = (b: ClassicBotView, f: 'r' | 'r_os') => flags[b.id]?.[f] ?? b[f];
  const setFlag = async (b: ClassicBotView, f: 'r' | 'r_os', value: boolean) => {
    const previous = flagOf(b, f);
    setFlags((p) => ({ ...p, [b.id]: { ...p[b.id], [f]: value } }));
    const change: BotUpdate = f === 'r' ? { r: value } : { r_os: value };
    try {
      const res = await dashboardApi.update(userId, b.exchange, b.symbol, change);
      if (!res.success) throw new Error(res.error ?? 'Error');
    } catch (err) {
      setFlags((p) => ({ ...p, [b.id]: { ...p[b.id], [f]: previous } }));
      notifications.show({
        color: 'red',
        message: t('bots.errors.generic', { message: errorMessage(err) }),
      });
    }
  };
  const tpVncOf = (b: ClassicBotView) => tpVncs[b.id] ?? b.tp_vnc ?? DEFAULT_TP_VNC;
  const changeTpVnc = async (b: ClassicBotView, value: number) => {
    const previous = tpVncOf(b);
    setTpVncs((p) => ({ ...p, [b.id]: value }));
    try {
      const res = await dashboardApi.updateTpVnc(userId, b.exchange, b.symbol, value);
      if (!res.success) throw new Error('Error');
      if (typeof res.tp_vnc === 'number') setTpVncs((p) => ({ ...p, [b.id]: res.tp_vnc }));
      void qc.invalidateQueries({ queryKey: ['dashboard', 'vncs'] });
    } catch (err) {
      setTpVncs((p) => ({ ...p, [b.id]: previous }));
      notifications.show({
        color: 'red',
        message: t('bots.errors.generic', { message: errorMessage(err) }),
      });
    }
  };
  const addFunds = async (b: ClassicBotView, raw: string): Promise<FundsResult> => {
    const value = commaToDot(raw).trim();
    const n = Number(value);
    if (value === '' || !Number.isFinite(n) || n <= 0) {
      return { ok: false, message: t('classic-dca.server.badFunds') };
    }
    try {
      const res = await dashboardApi.addFunds(userId, b.exchange, b.symbol, value);
      if (!res.success) {
        return {
          ok: false,
          message:
            res.error === CLASSIC_DCA_MESSAGES.badFunds
              ? t('classic-dca.server.badFunds')
              : res.error
                ? `❌ ${t('bots.errors.generic', { message: res.error })}`
                : t('classic-dca.errors.funds'),
        };
      }
      void qc.invalidateQueries({ queryKey: ['dashboard', 'dcas'] });
      // The server's 'Compra enviada' (spec part 2 §2) in the user's language.
      const sent = res.message ?? CLASSIC_DCA_MESSAGES.fundsSent;
      return {
        ok: true,
        message: sent === CLASSIC_DCA_MESSAGES.fundsSent ? t('classic-dca.server.fundsSent') : sent,
      };
    } catch (err) {
      if (err instanceof ApiError) {
        // The server's own words ('Cantidad inválida' or another reason).
        return {
          ok: false,
          message:
            err.message === CLASSIC_DCA_MESSAGES.badFunds
              ? t('classic-dca.server.badFunds')
              : `❌ ${t('bots.errors.generic', { message: errorMessage(err) })}`,
        };
      }
      return { ok: false, message: t('classic-dca.errors.fundsMsg', { message: errorMessage(err) }) };
    }
  };

  // --- start ----------------------------------------------------------------------------------------
  /** What the start call sends (and a backtest of these settings). */
  const startInput = (symbol: string): StartClassicInput => ({
    symbol,
    amount: commaToDot(form.amount),
    tp: form.tp,
    separacion: form.sep,
    os: commaToDot(form.os),
    exchange,
    user_id: userId,
    r: rNew,
    r_os: rOsNew,
    apartado,
    trend_filter: trendFilter,
    smart_averaging: smartAveraging,
    tp_vnc: tpVncNew,
  });
  const startBot = async () => {
    const ok = await form.check();
    if (!ok) return;
    const { symbol, amt } = ok;
    const opt: ClassicBotView = {
      id: `optimistic-${exchange}-${symbol}`,
      exchange,
      symbol,
      monto: amt,
      tp_pct: Number(form.tp),
      sep_pct: Number(form.sep),
      os: Number(form.os),
      dca: null,
      pnl: 0,
      precio: null,
      ttr: 0,
      r: rNew,
      r_os: rOsNew,
      sl: null,
      tp_plus: null,
      tp_vnc: tpVncNew,
      qty: 0,
      position_qty: 0,
      tp_price: null,
      next_safety: null,
      safety_filled: 0,
      cycles: 0,
      realized_pnl: 0,
      phase: 'waiting',
      waiting_for: null,
      trend_filter: trendFilter,
      smart_averaging: smartAveraging,
      status: 'active',
      problem: null,
      reason: null,
      started_at: new Date().toISOString(),
    };
    await startFlow.run(opt, async () => {
      const res = await dashboardApi.start(startInput(symbol));
      if (res.success === false) throw new Error(res.error ?? res.message ?? 'Error');
    });
  };

  if (!user) return <NoSession checking={checking} />;

  const classicPnls = (pnlsQ.data?.pnls ?? []).filter(
    (p) => p.kind === undefined || p.kind === 'classic-dca',
  );
  const totalPnl = pnlsQ.data
    ? classicPnls.length === (pnlsQ.data.pnls ?? []).length
      ? pnlsQ.data.total_pnl
      : classicPnls.reduce((s, p) => s + (Number.isFinite(p.pnl) ? p.pnl : 0), 0)
    : bots.reduce((s, b) => s + (Number.isFinite(b.pnl) ? b.pnl : 0), 0);
  const activeCount = serverBots.filter((b) => !removed.has(b.id)).length;

  return (
    <BotScreenFrame
      screen={SCREEN}
      // The page the 'Advanced Bot' tab opens: its title is the tab's name (issue 40 pt 3).
      title={t('bots.nav.advanced')}
      activeNav="advanced"
      form={
        <StartFormShell testId="dash-form">
          <Text size="sm" c="dimmed">
            {t('classic-dca.subtitle')}
          </Text>
          <StartFormFields screen={SCREEN} form={form} />
          <Group gap="lg" align="flex-start" grow>
            <Switch
              label={t('classic-dca.form.r')}
              description={t('classic-dca.help.r')}
              checked={rNew}
              onChange={(e) => setRNew(e.currentTarget.checked)}
              data-testid="dash-form-r"
            />
            <Switch
              label={t('classic-dca.form.rOs')}
              description={t('classic-dca.help.rOs')}
              checked={rOsNew}
              onChange={(e) => setROsNew(e.currentTarget.checked)}
              data-testid="dash-form-ros"
            />
          </Group>
          <Switch
            label={t('classic-dca.form.trendFilter')}
            description={t('classic-dca.form.trendFilterHint')}
            checked={trendFilter}
            onChange={(e) => setTrendFilter(e.currentTarget.checked)}
            data-testid="dash-form-trend"
          />
          <Switch
            label={t('classic-dca.form.smartAveraging')}
            description={t('classic-dca.form.smartAveragingHint')}
            checked={smartAveraging}
            onChange={(e) => setSmartAveraging(e.currentTarget.checked)}
            data-testid="dash-form-smart"
          />
          <NativeSelect
            label={t('classic-dca.form.tpVnc')}
            description={t('classic-dca.help.tpVnc')}
            inputWrapperOrder={['label', 'input', 'description', 'error']}
            value={String(tpVncNew)}
            onChange={(e) => setTpVncNew(Number(e.currentTarget.value))}
            data={TP_VNC_OPTIONS.map((v) => ({ value: String(v), label: `${v} %` }))}
            data-testid="dash-form-tpvnc"
          />
          <StartFormSubmit
            screen={SCREEN}
            form={form}
            onStart={() => void startBot()}
            beside={
              <BacktestButton
                kind="classic-dca"
                getParams={() => ({ ...startInput(form.pair.trim().toUpperCase()) })}
                exchange={exchange}
                symbol={form.pair.trim().toUpperCase()}
                onStart={() => void startBot()}
              />
            }
          />
          <TermsHelp
            summary={t('bots.help.terms')}
            terms={(['dca', 'ttr', 'vnc', 'sl', 'tpPlus'] as const).map((k) =>
              t(`classic-dca.help.terms.${k}`),
            )}
            testId="dash-terms"
          />
        </StartFormShell>
      }
      list={
        <ActiveBotsList count={bots.length} page={paged.page} pages={paged.pages} onPage={paged.setPage}>
          {paged.shown.map((b) => (
            <BotRow
              key={b.id}
              bot={b}
              figures={figuresOf(b)}
              edit={slTp.editOf(b)}
              now={slTp.now}
              clock={clock}
              r={flagOf(b, 'r')}
              rOs={flagOf(b, 'r_os')}
              tpVnc={tpVncOf(b)}
              optimistic={b.id.startsWith('optimistic-')}
              paused={dialogOpen}
              onEdit={(f, v) => slTp.onEdit(b, f, v)}
              onFlag={(f, v) => void setFlag(b, f, v)}
              onTpVnc={(v) => void changeTpVnc(b, v)}
              onAddFunds={(amt) => addFunds(b, amt)}
              onHistory={() => dialogs.setHistory(b)}
              onPending={() => dialogs.setPending(b)}
              onEvents={() => dialogs.setEvents(b)}
              onStop={() => stopFlow.ask(b)}
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
      <BotDialogs
        screen={SCREEN}
        form={form}
        start={startFlow}
        stop={stopFlow}
        dialogs={dialogs}
        load={{
          history: (b, page) => dashboardApi.history(b.id, page),
          pending: (b, page) => dashboardApi.pendingOrders(userId, b.id, page),
          events: (b) => dashboardApi.events(userId, b.id),
          closed: dashboardApi.closedBots,
        }}
      />
    </BotScreenFrame>
  );
}
