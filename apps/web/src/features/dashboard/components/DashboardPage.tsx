import {
  Alert,
  Anchor,
  Badge,
  Button,
  Card,
  Container,
  Group,
  NativeSelect,
  Paper,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import {
  CLASSIC_DCA_MESSAGES,
  EXCHANGES,
  MARKET_TYPES,
  TP_VNC_OPTIONS,
  type ClassicBotView,
} from '@bytx/contract';
import { ApiError, errorMessage } from '../../../shared/api/client';
import { useSession, userIdOf } from '../../../shared/session/session';
import { commaToDot, dashboardApi, pairKey, type BotUpdate, type StopMode } from '../api/dashboard';
import { BotRow, EDIT_WINDOW_MS, type BotFigures, type FundsResult, type SlTpEdit } from './BotRow';
import {
  AttentionDialog,
  ClosedBotsDialog,
  EventsDialog,
  Pager,
  PendingOrdersDialog,
  ProgressModal,
  StopDialog,
  TradeHistoryDialog,
  type ProgressPhase,
} from './dialogs';

const PULSE_CSS = `@keyframes dashPulse { 0% { box-shadow: 0 0 0 0 rgba(224,49,49,.7) } 70% { box-shadow: 0 0 0 6px rgba(224,49,49,0) } 100% { box-shadow: 0 0 0 0 rgba(224,49,49,0) } }
.dash-invalid input { border-color: #e03131 !important; animation: dashPulse 1.2s infinite; }`;

export const BOTS_PER_PAGE = 2;
/** Polling periods of spec part 2 §9. */
export const POLL_MS = { bots: 5_000, figures: 10_000, vncSlow: 60_000, resend: 5_000 } as const;

const emptyEdit = (b: ClassicBotView): SlTpEdit => ({
  sl: b.sl === null ? '' : String(b.sl),
  tpPlus: b.tp_plus === null ? '' : String(b.tp_plus),
  slEditedAt: null,
  tpEditedAt: null,
});
const DEFAULT_TP_VNC = 0.5;

/** The classic DCA bot dashboard (spec part 2 §2, the spot-bot screen variant) at /dashboard. */
export function DashboardPage() {
  const { t } = useTranslation();
  const { user, checking } = useSession();
  const qc = useQueryClient();
  const userId = userIdOf(user);

  // --- form state ---------------------------------------------------------------------------------
  const [exchange, setExchange] = useState('');
  const [apartado, setApartado] = useState<string>('Spot');
  const [pair, setPair] = useState('');
  const [pairFocus, setPairFocus] = useState(false);
  const [amount, setAmount] = useState('20');
  const [tp, setTp] = useState('1');
  const [sep, setSep] = useState('1');
  const [os, setOs] = useState('3');
  const [rNew, setRNew] = useState(false);
  const [rOsNew, setROsNew] = useState(false);
  const [trendFilter, setTrendFilter] = useState(true);
  const [smartAveraging, setSmartAveraging] = useState(true);
  const [tpVncNew, setTpVncNew] = useState<number>(DEFAULT_TP_VNC);
  const [formError, setFormError] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<{ tp: boolean; sep: boolean }>({ tp: false, sep: false });
  const tpRef = useRef<HTMLInputElement>(null);
  const sepRef = useRef<HTMLInputElement>(null);

  // --- dialogs ------------------------------------------------------------------------------------
  const [attention, setAttention] = useState<null | 'tp' | 'sep'>(null);
  const [startPhase, setStartPhase] = useState<ProgressPhase | null>(null);
  const [startDetail, setStartDetail] = useState<string | null>(null);
  const [stopPhase, setStopPhase] = useState<ProgressPhase | null>(null);
  const [stopDetail, setStopDetail] = useState<string | null>(null);
  const [stopBot, setStopBot] = useState<ClassicBotView | null>(null);
  const [historyBot, setHistoryBot] = useState<ClassicBotView | null>(null);
  const [pendingBot, setPendingBot] = useState<ClassicBotView | null>(null);
  const [eventsBot, setEventsBot] = useState<ClassicBotView | null>(null);
  const [closedOpen, setClosedOpen] = useState(false);
  const dialogOpen =
    attention !== null ||
    startPhase !== null ||
    stopPhase !== null ||
    stopBot !== null ||
    historyBot !== null ||
    pendingBot !== null ||
    eventsBot !== null ||
    closedOpen;
  const poll = (ms: number) => (dialogOpen ? false : ms);

  // --- server data --------------------------------------------------------------------------------
  const conns = useQuery({
    queryKey: ['dashboard', 'conexiones', userId],
    queryFn: () => dashboardApi.connections(userId),
    enabled: !!user,
  });
  const connected = conns.data?.conexiones ?? {};
  const pairs = useQuery({
    queryKey: ['dashboard', 'pairs', exchange],
    queryFn: () => dashboardApi.pairs(exchange),
    enabled: !!user && exchange !== '',
    staleTime: 5 * 60_000,
  });
  const savedApartado = useQuery({
    queryKey: ['dashboard', 'apartado'],
    queryFn: dashboardApi.apartado,
    enabled: !!user,
  });
  useEffect(() => {
    if (savedApartado.data?.apartado) setApartado(savedApartado.data.apartado);
  }, [savedApartado.data]);

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

  // --- local overlays: optimistic start, rows removed after a stop, R / R(OS) / TP VNC choices ----
  const [optimistic, setOptimistic] = useState<ClassicBotView | null>(null);
  const [removed, setRemoved] = useState<Set<string>>(() => new Set());
  const [flags, setFlags] = useState<Record<string, { r?: boolean; r_os?: boolean }>>({});
  const [tpVncs, setTpVncs] = useState<Record<string, number>>({});
  const bots = useMemo(() => {
    const list = serverBots.filter((b) => !removed.has(b.id));
    if (
      optimistic &&
      !list.some((b) => b.exchange === optimistic.exchange && b.symbol === optimistic.symbol)
    ) {
      return [...list, optimistic];
    }
    return list;
  }, [serverBots, removed, optimistic]);
  const [botPage, setBotPage] = useState(1);
  const botPages = Math.max(1, Math.ceil(bots.length / BOTS_PER_PAGE));
  const curPage = Math.min(botPage, botPages);
  const shownBots = bots.slice((curPage - 1) * BOTS_PER_PAGE, curPage * BOTS_PER_PAGE);

  const figuresOf = (b: ClassicBotView): BotFigures => {
    const same = (x: { exchange: string; symbol: string }) =>
      x.exchange === b.exchange && x.symbol === b.symbol;
    const dca = dcasQ.data?.dcas?.find(same);
    const pnl = pnlsQ.data?.pnls?.find((p) => same(p) && (p.kind === undefined || p.kind === 'classic_dca'));
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
  const [edits, setEdits] = useState<Record<string, SlTpEdit>>({});
  const editsRef = useRef(edits);
  editsRef.current = edits;
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const tick = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(tick);
  }, []);
  const editOf = (b: ClassicBotView) => edits[b.id] ?? emptyEdit(b);
  const onEdit = (b: ClassicBotView, field: 'sl' | 'tpPlus', value: string) => {
    setEdits((prev) => {
      const cur = prev[b.id] ?? emptyEdit(b);
      const v = commaToDot(value);
      return {
        ...prev,
        [b.id]:
          field === 'sl'
            ? { ...cur, sl: v, slEditedAt: Date.now() }
            : { ...cur, tpPlus: v, tpEditedAt: Date.now() },
      };
    });
  };
  const botsRef = useRef(bots);
  botsRef.current = bots;
  useEffect(() => {
    const report = (err: unknown) =>
      notifications.show({
        color: 'red',
        message: t('dashboard.errors.generic', { message: errorMessage(err) }),
      });
    const timer = setInterval(() => {
      const at = Date.now();
      for (const [id, e] of Object.entries(editsRef.current)) {
        const b = botsRef.current.find((x) => x.id === id);
        if (!b) continue;
        const toNum = (s: string) => (s.trim() === '' ? null : Number(s));
        if (e.slEditedAt !== null && at - e.slEditedAt > EDIT_WINDOW_MS) {
          setEdits((p) => ({ ...p, [id]: { ...(p[id] ?? e), slEditedAt: null } }));
          void dashboardApi.update(userId, b.exchange, b.symbol, { sl: toNum(e.sl) }).catch(report);
        }
        if (e.tpEditedAt !== null && at - e.tpEditedAt > EDIT_WINDOW_MS) {
          setEdits((p) => ({ ...p, [id]: { ...(p[id] ?? e), tpEditedAt: null } }));
          void dashboardApi.update(userId, b.exchange, b.symbol, { tp_plus: toNum(e.tpPlus) }).catch(report);
        }
      }
    }, POLL_MS.resend);
    return () => clearInterval(timer);
  }, [t, userId]);

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
        message: t('dashboard.errors.generic', { message: errorMessage(err) }),
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
        message: t('dashboard.errors.generic', { message: errorMessage(err) }),
      });
    }
  };
  const addFunds = async (b: ClassicBotView, raw: string): Promise<FundsResult> => {
    const value = commaToDot(raw).trim();
    const n = Number(value);
    if (value === '' || !Number.isFinite(n) || n <= 0) {
      return { ok: false, message: CLASSIC_DCA_MESSAGES.badFunds };
    }
    try {
      const res = await dashboardApi.addFunds(userId, b.exchange, b.symbol, value);
      if (!res.success) {
        return {
          ok: false,
          message:
            res.error === CLASSIC_DCA_MESSAGES.badFunds
              ? res.error
              : res.error
                ? `❌ ${t('dashboard.errors.generic', { message: res.error })}`
                : t('dashboard.errors.funds'),
        };
      }
      void qc.invalidateQueries({ queryKey: ['dashboard', 'dcas'] });
      return { ok: true, message: res.message ?? CLASSIC_DCA_MESSAGES.fundsSent };
    } catch (err) {
      if (err instanceof ApiError) {
        // The server's own words ('Cantidad inválida' or another reason).
        return {
          ok: false,
          message:
            err.message === CLASSIC_DCA_MESSAGES.badFunds
              ? err.message
              : `❌ ${t('dashboard.errors.generic', { message: err.message })}`,
        };
      }
      return { ok: false, message: t('dashboard.errors.fundsMsg', { message: errorMessage(err) }) };
    }
  };

  // --- form handlers --------------------------------------------------------------------------------
  const pctOk = (v: string) => {
    const n = Number(commaToDot(v));
    return v.trim() !== '' && Number.isFinite(n) && n >= 0.5;
  };
  const onPct = (field: 'tp' | 'sep', raw: string) => {
    const v = commaToDot(raw);
    if (field === 'tp') setTp(v);
    else setSep(v);
    // The flag clears once the value is at least 0.5.
    if (pctOk(v)) setInvalid((p) => ({ ...p, [field]: false }));
  };
  const chooseExchange = (key: string) => {
    setExchange(key);
    setFormError(null);
    if (key && conns.data && !connected[key]) setFormError(t('dashboard.form.notConnectedAlert'));
  };
  const chooseApartado = (v: string) => {
    setApartado(v);
    void dashboardApi.saveApartado(userId, v).catch(() => undefined);
  };
  const suggestions = useMemo(() => {
    const q = pair.trim().toUpperCase();
    if (!q) return [];
    return (pairs.data ?? []).filter((p) => p.toUpperCase().includes(q)).slice(0, 10);
  }, [pair, pairs.data]);
  const exchangeName = (key: string) => EXCHANGES.find((e) => e.key === key)?.name ?? key;

  const fail = (msg: string) => {
    setFormError(msg);
    notifications.show({ color: 'red', message: msg });
  };

  const startBot = async () => {
    setFormError(null);
    // 1. TP and Separation at least 0.5 (red pulsing border + attention dialog).
    const badTp = !pctOk(tp);
    const badSep = !pctOk(sep);
    if (badTp || badSep) {
      setInvalid({ tp: badTp, sep: badSep });
      setAttention(badSep ? 'sep' : 'tp');
      return;
    }
    // 2. Exchange selected and connected (state refreshed just before start).
    if (!exchange) return fail(t('dashboard.validation.noExchange'));
    const fresh = await conns.refetch();
    if (!fresh.data?.conexiones?.[exchange]) return fail(t('dashboard.validation.notConnected'));
    // 3. Pair required and on the exchange.
    const symbol = pair.trim().toUpperCase();
    if (!symbol) return fail(t('dashboard.validation.noPair'));
    if (pairs.data && !pairs.data.includes(symbol)) {
      return fail(t('dashboard.form.pairNotAvailable', { exchange: exchangeName(exchange) }));
    }
    // 4. Amount numeric and not below the minimum cost (a failing check lets the start proceed).
    const amt = Number(commaToDot(amount));
    if (amount.trim() === '' || !Number.isFinite(amt)) return fail(t('dashboard.validation.badAmount'));
    try {
      const mc = await dashboardApi.minCost(userId, exchange, symbol);
      if (mc.success && amt < mc.min_cost) {
        return fail(
          t('dashboard.validation.belowMinCost', {
            pair: symbol,
            x: Number(mc.min_cost.toFixed(2)),
            n: Number((mc.min_cost / (mc.price || 1)).toFixed(8)),
            p: mc.price,
          }),
        );
      }
    } catch {
      // The minimum-cost check failing does not block the start (spec part 2 §5).
    }
    const opt: ClassicBotView = {
      id: `optimistic-${exchange}-${symbol}`,
      exchange,
      symbol,
      monto: amt,
      tp_pct: Number(tp),
      sep_pct: Number(sep),
      os: Number(os),
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
    setOptimistic(opt);
    setStartDetail(null);
    setStartPhase('loading');
    try {
      const res = await dashboardApi.start({
        symbol,
        amount: commaToDot(amount),
        tp,
        separacion: sep,
        os: commaToDot(os),
        exchange,
        user_id: userId,
        r: rNew,
        r_os: rOsNew,
        apartado,
        trend_filter: trendFilter,
        smart_averaging: smartAveraging,
        tp_vnc: tpVncNew,
      });
      if (res.success === false) throw new Error(res.error ?? res.message ?? 'Error');
      setStartPhase('success');
      await qc.invalidateQueries({ queryKey: ['dashboard', 'bots'] });
      setOptimistic(null);
    } catch (err) {
      setOptimistic(null);
      setStartPhase('error');
      setStartDetail(t('dashboard.errors.start', { message: errorMessage(err, 'Error') }));
    }
    setTimeout(() => setStartPhase(null), 2_000);
  };

  const doStop = async (mode: StopMode) => {
    const b = stopBot;
    setStopBot(null);
    if (!b) return;
    // R and R(OS) are cleared locally before stopping (spec part 2 §4).
    setFlags((p) => ({ ...p, [b.id]: { r: false, r_os: false } }));
    setStopDetail(null);
    setStopPhase('loading');
    try {
      const r = await dashboardApi.stop(userId, b.exchange, b.symbol, mode);
      if (!r.success) throw new Error(r.error ?? r.message ?? t('dashboard.errors.stopUnknown'));
      setStopPhase('success');
      setTimeout(() => {
        setRemoved((s) => new Set(s).add(b.id));
        void qc.invalidateQueries({ queryKey: ['dashboard', 'bots'] });
      }, 2_000);
    } catch (err) {
      setStopPhase('error');
      setStopDetail(
        err instanceof TypeError
          ? t('dashboard.errors.stopNetwork')
          : t('dashboard.errors.stop', { message: errorMessage(err, t('dashboard.errors.stopUnknown')) }),
      );
    }
    setTimeout(() => setStopPhase(null), 2_000);
  };

  if (checking && !user) return <Text p="xl">{t('dashboard.checking')}</Text>;
  if (!user) return <Text p="xl">{t('dashboard.denied')}</Text>;

  const classicPnls = (pnlsQ.data?.pnls ?? []).filter(
    (p) => p.kind === undefined || p.kind === 'classic_dca',
  );
  const totalPnl = pnlsQ.data
    ? classicPnls.length === (pnlsQ.data.pnls ?? []).length
      ? pnlsQ.data.total_pnl
      : classicPnls.reduce((s, p) => s + (Number.isFinite(p.pnl) ? p.pnl : 0), 0)
    : bots.reduce((s, b) => s + (Number.isFinite(b.pnl) ? b.pnl : 0), 0);
  const activeCount = serverBots.filter((b) => !removed.has(b.id)).length;
  const isConnected = exchange !== '' && !!connected[exchange];

  return (
    <Container size="xl" py="md">
      <style>{PULSE_CSS}</style>
      <Group gap="xs" mb="md">
        <Button component={Link} to="/grid-bot" variant="subtle" size="xs">
          {t('dashboard.nav.grid')}
        </Button>
        <Button variant="subtle" size="xs">
          {t('dashboard.nav.advanced')}
        </Button>
        <Button component={Link} to="/bot-dca" variant="subtle" size="xs">
          {t('dashboard.nav.dca')}
        </Button>
        <Button component={Link} to="/arbitraje" variant="subtle" size="xs">
          {t('dashboard.nav.arbitrage')}
        </Button>
        <Button component={Link} to="/signalbot" variant="subtle" size="xs">
          {t('dashboard.nav.signal')}
        </Button>
        <Button component={Link} to="/forum" variant="outline" size="xs">
          {t('dashboard.nav.forum')}
        </Button>
      </Group>
      <Title order={2} mb="md">
        {t('dashboard.title')}
      </Title>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Paper withBorder p="md">
          <Stack gap="sm">
            <Group align="flex-end" gap="xs">
              <NativeSelect
                label={t('dashboard.form.exchange')}
                value={exchange}
                onChange={(e) => chooseExchange(e.currentTarget.value)}
                data={[
                  { value: '', label: t('dashboard.form.exchangePlaceholder') },
                  ...EXCHANGES.map((e) => ({
                    value: e.key,
                    label: `${e.name} ${connected[e.key] ? t('dashboard.form.connectedMark') : t('dashboard.form.notConnectedMark')}`,
                  })),
                ]}
                style={{ flex: 1 }}
                data-testid="dash-exchange"
              />
              {exchange && (
                <Badge color={isConnected ? 'green' : 'red'} data-testid="dash-exchange-badge">
                  {isConnected ? t('dashboard.form.connected') : t('dashboard.form.notConnected')}
                </Badge>
              )}
            </Group>
            <NativeSelect
              label={t('dashboard.form.marketType')}
              value={apartado}
              onChange={(e) => chooseApartado(e.currentTarget.value)}
              data={[...MARKET_TYPES]}
              data-testid="dash-market-type"
            />
            <div style={{ position: 'relative' }}>
              <TextInput
                label={t('dashboard.form.pair')}
                placeholder={t('dashboard.form.pairPlaceholder')}
                value={pair}
                onChange={(e) => setPair(e.currentTarget.value.toUpperCase())}
                onFocus={() => setPairFocus(true)}
                onBlur={() => setTimeout(() => setPairFocus(false), 150)}
                data-testid="dash-pair"
              />
              {pairFocus && suggestions.length > 0 && !suggestions.includes(pair) && (
                <Card
                  withBorder
                  padding={4}
                  style={{ position: 'absolute', zIndex: 20, left: 0, right: 0 }}
                  data-testid="dash-pair-suggestions"
                >
                  {suggestions.map((s) => (
                    <Text
                      key={s}
                      size="sm"
                      p={4}
                      style={{ cursor: 'pointer' }}
                      onMouseDown={(e) => {
                        e.preventDefault();
                        setPair(s);
                        setPairFocus(false);
                      }}
                      data-testid="dash-pair-suggestion"
                    >
                      {s}
                    </Text>
                  ))}
                </Card>
              )}
              {exchange && pair && pairs.data && !pairFocus && !pairs.data.includes(pair.trim()) && (
                <Text size="xs" c="red" mt={4}>
                  {t('dashboard.form.pairNotAvailable', { exchange: exchangeName(exchange) })}
                </Text>
              )}
            </div>
            <SimpleGrid cols={2} spacing="xs">
              <TextInput
                label={t('dashboard.form.amount')}
                value={amount}
                onChange={(e) => setAmount(commaToDot(e.currentTarget.value))}
                data-testid="dash-amount"
              />
              <TextInput
                ref={tpRef}
                label={t('dashboard.form.tp')}
                value={tp}
                className={invalid.tp ? 'dash-invalid' : undefined}
                onChange={(e) => onPct('tp', e.currentTarget.value)}
                data-testid="dash-tp"
              />
              <TextInput
                ref={sepRef}
                label={t('dashboard.form.separation')}
                value={sep}
                className={invalid.sep ? 'dash-invalid' : undefined}
                onChange={(e) => onPct('sep', e.currentTarget.value)}
                data-testid="dash-sep"
              />
              <TextInput
                label={t('dashboard.form.os')}
                value={os}
                onChange={(e) => setOs(commaToDot(e.currentTarget.value))}
                data-testid="dash-os"
              />
            </SimpleGrid>
            <Group gap="lg">
              <Switch
                label={t('dashboard.form.r')}
                title={t('dashboard.form.rHint')}
                checked={rNew}
                onChange={(e) => setRNew(e.currentTarget.checked)}
                data-testid="dash-form-r"
              />
              <Switch
                label={t('dashboard.form.rOs')}
                title={t('dashboard.form.rOsHint')}
                checked={rOsNew}
                onChange={(e) => setROsNew(e.currentTarget.checked)}
                data-testid="dash-form-ros"
              />
            </Group>
            <Switch
              label={t('dashboard.form.trendFilter')}
              description={t('dashboard.form.trendFilterHint')}
              checked={trendFilter}
              onChange={(e) => setTrendFilter(e.currentTarget.checked)}
              data-testid="dash-form-trend"
            />
            <Switch
              label={t('dashboard.form.smartAveraging')}
              description={t('dashboard.form.smartAveragingHint')}
              checked={smartAveraging}
              onChange={(e) => setSmartAveraging(e.currentTarget.checked)}
              data-testid="dash-form-smart"
            />
            <NativeSelect
              label={t('dashboard.form.tpVnc')}
              description={t('dashboard.form.tpVncHint')}
              value={String(tpVncNew)}
              onChange={(e) => setTpVncNew(Number(e.currentTarget.value))}
              data={TP_VNC_OPTIONS.map((v) => ({ value: String(v), label: `${v} %` }))}
              data-testid="dash-form-tpvnc"
            />
            {formError && (
              <Alert color="red" data-testid="dash-form-error">
                {formError}
              </Alert>
            )}
            <Button onClick={() => void startBot()} data-testid="dash-start">
              {t('dashboard.form.start')}
            </Button>
          </Stack>
        </Paper>
        <Paper withBorder p="md">
          <Stack gap="sm">
            <Title order={4}>{t('dashboard.bots.title')}</Title>
            {bots.length === 0 && <Text c="dimmed">{t('dashboard.bots.none')}</Text>}
            {shownBots.map((b) => (
              <BotRow
                key={b.id}
                bot={b}
                figures={figuresOf(b)}
                edit={editOf(b)}
                now={now}
                r={flagOf(b, 'r')}
                rOs={flagOf(b, 'r_os')}
                tpVnc={tpVncOf(b)}
                optimistic={b.id.startsWith('optimistic-')}
                paused={dialogOpen}
                onEdit={(f, v) => onEdit(b, f, v)}
                onFlag={(f, v) => void setFlag(b, f, v)}
                onTpVnc={(v) => void changeTpVnc(b, v)}
                onAddFunds={(amt) => addFunds(b, amt)}
                onHistory={() => setHistoryBot(b)}
                onPending={() => setPendingBot(b)}
                onEvents={() => setEventsBot(b)}
                onStop={() => setStopBot(b)}
              />
            ))}
            <Pager page={curPage} pages={botPages} onPage={setBotPage} />
          </Stack>
        </Paper>
      </SimpleGrid>
      <Paper withBorder p="sm" mt="lg">
        <Group justify="space-between">
          <Group>
            <Text fw={600} c={totalPnl >= 0 ? 'green' : 'red'} data-testid="dash-total-pnl">
              {t('dashboard.footer.totalPnl', { pnl: totalPnl.toFixed(2) })}
            </Text>
            <Text data-testid="dash-active-count">{t('dashboard.footer.active', { n: activeCount })}</Text>
          </Group>
          <Group>
            <Button
              variant="default"
              size="xs"
              onClick={() => setClosedOpen(true)}
              data-testid="dash-closed-btn"
            >
              {t('dashboard.footer.history')}
            </Button>
            <Anchor component={Link} to="/GlobalPendingOrders">
              {t('dashboard.footer.globalPending')}
            </Anchor>
            <Anchor component={Link} to="/historial-global">
              {t('dashboard.footer.globalHistory')}
            </Anchor>
          </Group>
        </Group>
      </Paper>

      <AttentionDialog
        opened={attention !== null}
        onAccept={() => {
          const field = attention;
          setAttention(null);
          setTimeout(() => (field === 'sep' ? sepRef : tpRef).current?.focus(), 50);
        }}
      />
      <ProgressModal
        kind="start"
        phase={startPhase}
        detail={startDetail}
        onClose={() => setStartPhase(null)}
      />
      <ProgressModal kind="stop" phase={stopPhase} detail={stopDetail} onClose={() => setStopPhase(null)} />
      <StopDialog bot={stopBot} onChoose={(m) => void doStop(m)} onCancel={() => setStopBot(null)} />
      <TradeHistoryDialog bot={historyBot} onClose={() => setHistoryBot(null)} />
      <PendingOrdersDialog bot={pendingBot} userId={userId} onClose={() => setPendingBot(null)} />
      <EventsDialog bot={eventsBot} userId={userId} onClose={() => setEventsBot(null)} />
      <ClosedBotsDialog opened={closedOpen} onClose={() => setClosedOpen(false)} />
    </Container>
  );
}
