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
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { EXCHANGES, MARKET_TYPES, type DcaBotView } from '@bytx/contract';
import { errorMessage } from '../../../shared/api/client';
import { useSession, userIdOf } from '../../../shared/session/session';
import { commaToDot, dcaApi } from '../api/dca';
import { ActiveBotRow, EDIT_WINDOW_MS, type SlTpEdit } from './ActiveBotRow';
import {
  AttentionDialog,
  ClosedBotsDialog,
  EventsDialog,
  LeverageDialog,
  Pager,
  PendingOrdersDialog,
  ProgressModal,
  StopDialog,
  TradeHistoryDialog,
  type ProgressPhase,
} from './dialogs';

const PULSE_CSS = `@keyframes dcaPulse { 0% { box-shadow: 0 0 0 0 rgba(224,49,49,.7) } 70% { box-shadow: 0 0 0 6px rgba(224,49,49,0) } 100% { box-shadow: 0 0 0 0 rgba(224,49,49,0) } }
.dca-invalid input { border-color: #e03131 !important; animation: dcaPulse 1.2s infinite; }`;

const BOTS_PER_PAGE = 2;
const emptyEdit = (b: DcaBotView): SlTpEdit => ({
  sl: b.sl === null ? '' : String(b.sl),
  tpPlus: b.tp_plus === null ? '' : String(b.tp_plus),
  slEditedAt: null,
  tpEditedAt: null,
});

/** Grid Bot DCA dashboard (spec part 2 §2 "Bot start screen", DCA dashboard at /bot-dca). */
export function BotDcaPage() {
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
  const [leverage, setLeverage] = useState(1);
  const [direction, setDirection] = useState<'LONG' | 'SHORT'>('LONG');
  const [formError, setFormError] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<{ tp: boolean; sep: boolean }>({ tp: false, sep: false });
  const tpRef = useRef<HTMLInputElement>(null);
  const sepRef = useRef<HTMLInputElement>(null);

  // --- dialogs ------------------------------------------------------------------------------------
  const [attention, setAttention] = useState<null | 'tp' | 'sep'>(null);
  const [leverageOpen, setLeverageOpen] = useState(false);
  const [startPhase, setStartPhase] = useState<ProgressPhase | null>(null);
  const [startDetail, setStartDetail] = useState<string | null>(null);
  const [stopPhase, setStopPhase] = useState<ProgressPhase | null>(null);
  const [stopDetail, setStopDetail] = useState<string | null>(null);
  const [stopBot, setStopBot] = useState<DcaBotView | null>(null);
  const [historyBot, setHistoryBot] = useState<DcaBotView | null>(null);
  const [pendingBot, setPendingBot] = useState<DcaBotView | null>(null);
  const [eventsBot, setEventsBot] = useState<DcaBotView | null>(null);
  const [closedOpen, setClosedOpen] = useState(false);
  const dialogOpen =
    attention !== null ||
    leverageOpen ||
    startPhase !== null ||
    stopPhase !== null ||
    stopBot !== null ||
    historyBot !== null ||
    pendingBot !== null ||
    eventsBot !== null ||
    closedOpen;

  // --- server data --------------------------------------------------------------------------------
  const conns = useQuery({
    queryKey: ['dca', 'conexiones', userId],
    queryFn: () => dcaApi.connections(userId),
    enabled: !!user,
  });
  const connected = conns.data?.conexiones ?? {};
  const pairs = useQuery({
    queryKey: ['dca', 'pairs', exchange],
    queryFn: () => dcaApi.pairs(exchange),
    enabled: !!user && exchange !== '',
    staleTime: 5 * 60_000,
  });
  const botsQ = useQuery({
    queryKey: ['dca', 'bots', userId],
    queryFn: () => dcaApi.activeBots(userId),
    enabled: !!user,
    refetchInterval: dialogOpen ? false : 5_000,
  });
  const pricesQ = useQuery({
    queryKey: ['dca', 'prices', userId],
    queryFn: () => dcaApi.prices(userId),
    enabled: !!user,
    refetchInterval: 10_000,
  });
  const savedApartado = useQuery({
    queryKey: ['dca', 'apartado'],
    queryFn: dcaApi.apartado,
    enabled: !!user,
  });
  useEffect(() => {
    if (savedApartado.data?.apartado) setApartado(savedApartado.data.apartado);
  }, [savedApartado.data]);

  const [optimistic, setOptimistic] = useState<DcaBotView | null>(null);
  const bots = useMemo(() => {
    const list = botsQ.data?.bots ?? [];
    if (
      optimistic &&
      !list.some((b) => b.exchange === optimistic.exchange && b.symbol === optimistic.symbol)
    ) {
      return [...list, optimistic];
    }
    return list;
  }, [botsQ.data, optimistic]);
  const [botPage, setBotPage] = useState(1);
  const botPages = Math.max(1, Math.ceil(bots.length / BOTS_PER_PAGE));
  const shownBots = bots.slice(
    (Math.min(botPage, botPages) - 1) * BOTS_PER_PAGE,
    Math.min(botPage, botPages) * BOTS_PER_PAGE,
  );
  const priceOf = (b: DcaBotView) =>
    pricesQ.data?.find((p) => p.exchange === b.exchange && p.symbol === b.symbol)?.price ?? null;

  // --- SL / TP+ edits: 30 s countdown, every 5 s send what was edited more than 30 s ago ---------
  const [edits, setEdits] = useState<Record<string, SlTpEdit>>({});
  const editsRef = useRef(edits);
  editsRef.current = edits;
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const tick = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(tick);
  }, []);
  const editOf = (b: DcaBotView) => edits[b.id] ?? emptyEdit(b);
  const onEdit = (b: DcaBotView, field: 'sl' | 'tpPlus', value: string) => {
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
    const timer = setInterval(() => {
      const at = Date.now();
      for (const [id, e] of Object.entries(editsRef.current)) {
        const b = botsRef.current.find((x) => x.id === id);
        if (!b) continue;
        const toNum = (s: string) => (s.trim() === '' ? null : Number(s));
        if (e.slEditedAt !== null && at - e.slEditedAt > EDIT_WINDOW_MS) {
          setEdits((p) => ({ ...p, [id]: { ...(p[id] ?? e), slEditedAt: null } }));
          void dcaApi.updateSl(userId, b.exchange, b.symbol, toNum(e.sl)).catch((err: unknown) =>
            notifications.show({
              color: 'red',
              message: t('dca.errors.generic', { message: errorMessage(err) }),
            }),
          );
        }
        if (e.tpEditedAt !== null && at - e.tpEditedAt > EDIT_WINDOW_MS) {
          setEdits((p) => ({ ...p, [id]: { ...(p[id] ?? e), tpEditedAt: null } }));
          void dcaApi.updateTpPlus(userId, b.exchange, b.symbol, toNum(e.tpPlus)).catch((err: unknown) =>
            notifications.show({
              color: 'red',
              message: t('dca.errors.generic', { message: errorMessage(err) }),
            }),
          );
        }
      }
    }, 5_000);
    return () => clearInterval(timer);
  }, [t, userId]);

  // --- form handlers --------------------------------------------------------------------------------
  const pctOk = (v: string) => {
    const n = Number(commaToDot(v));
    return Number.isFinite(n) && n >= 0.5;
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
    if (key && conns.data && !connected[key]) setFormError(t('dca.form.notConnectedAlert'));
  };
  const chooseApartado = (v: string) => {
    setApartado(v);
    void dcaApi.saveApartado(userId, v).catch(() => undefined);
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
    if (!exchange) return fail(t('dca.validation.noExchange'));
    const fresh = await conns.refetch();
    if (!fresh.data?.conexiones?.[exchange]) return fail(t('dca.validation.notConnected'));
    // 3. Pair required and on the exchange.
    const symbol = pair.trim().toUpperCase();
    if (!symbol) return fail(t('dca.validation.noPair'));
    if (pairs.data && !pairs.data.includes(symbol)) {
      return fail(t('dca.form.pairNotAvailable', { exchange: exchangeName(exchange) }));
    }
    // 4. Amount numeric and not below the minimum cost (a failing check lets the start proceed).
    const amt = Number(commaToDot(amount));
    if (amount.trim() === '' || !Number.isFinite(amt)) return fail(t('dca.validation.badAmount'));
    try {
      const mc = await dcaApi.minCost(userId, exchange, symbol);
      if (mc.success && amt < mc.min_cost) {
        return fail(
          t('dca.validation.belowMinCost', {
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
    const opt: DcaBotView = {
      id: `optimistic-${symbol}`,
      exchange,
      symbol,
      monto: amt,
      tp_pct: Number(tp),
      os: Number(os),
      sep_pct: Number(sep),
      precio: 0,
      sl: null,
      tp_plus: null,
      ra_enabled: false,
      apartado,
      leverage,
      direction,
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
    setOptimistic(opt);
    setStartDetail(null);
    setStartPhase('loading');
    try {
      await dcaApi.start({
        symbol,
        amount: commaToDot(amount),
        tp,
        separacion: sep,
        os,
        exchange,
        user_id: userId,
        apartado,
        ...(apartado !== 'Spot' ? { leverage, direction } : {}),
      });
      setStartPhase('success');
      await qc.invalidateQueries({ queryKey: ['dca', 'bots'] });
      setOptimistic(null);
    } catch (err) {
      setOptimistic(null);
      setStartPhase('error');
      const msg = errorMessage(err, 'Error');
      setStartDetail(t('dca.errors.start', { message: msg }));
    }
    setTimeout(() => setStartPhase(null), 2_000);
  };

  const doStop = async (mode: 'close_market' | 'cancel_only') => {
    const b = stopBot;
    setStopBot(null);
    if (!b) return;
    setStopDetail(null);
    setStopPhase('loading');
    try {
      const r = await dcaApi.stop(userId, b.exchange, b.symbol, mode);
      if (!r.success) throw new Error(r.error ?? r.message ?? t('dca.errors.stopUnknown'));
      setStopPhase('success');
      setTimeout(() => void qc.invalidateQueries({ queryKey: ['dca', 'bots'] }), 2_000);
    } catch (err) {
      setStopPhase('error');
      setStopDetail(
        err instanceof TypeError
          ? t('dca.errors.stopNetwork')
          : t('dca.errors.stop', { message: errorMessage(err, t('dca.errors.stopUnknown')) }),
      );
    }
    setTimeout(() => setStopPhase(null), 2_000);
  };

  const relocate = async (b: DcaBotView) => {
    if (!window.confirm(t('dca.relocate.confirm', { symbol: b.symbol, exchange: b.exchange }))) return;
    try {
      const r = await dcaApi.relocate(userId, b.exchange, b.symbol);
      if (r.success) notifications.show({ color: 'green', message: t('dca.relocate.success') });
      else
        notifications.show({
          color: 'red',
          message: t('dca.relocate.failure', { reason: r.error ?? t('dca.relocate.unknown') }),
        });
      await qc.invalidateQueries({ queryKey: ['dca', 'bots'] });
    } catch (err) {
      const reason = errorMessage(err, '');
      notifications.show({
        color: 'red',
        message: reason ? t('dca.relocate.failure', { reason }) : t('dca.relocate.network'),
      });
    }
  };

  const toggleRa = async (b: DcaBotView, enabled: boolean) => {
    try {
      const r = await dcaApi.raToggle(userId, b.exchange, b.symbol, enabled);
      if (!r.success) notifications.show({ color: 'red', message: t('dca.errors.ra') });
      await qc.invalidateQueries({ queryKey: ['dca', 'bots'] });
    } catch (err) {
      notifications.show({ color: 'red', message: t('dca.errors.network', { message: errorMessage(err) }) });
    }
  };

  const confirmLeverage = useCallback(
    (n: number) => {
      setLeverageOpen(false);
      setLeverage(n);
      void dcaApi
        .setLeverage(userId, exchange, pair.trim().toUpperCase(), n)
        .catch((err: unknown) => console.error('set_leverage failed', err));
      notifications.show({ message: t('dca.leverage.toast', { n }), autoClose: 3_000 });
    },
    [exchange, pair, t, userId],
  );

  if (checking && !user) return <Text p="xl">{t('dca.checking')}</Text>;
  if (!user) return <Text p="xl">{t('dca.denied')}</Text>;

  const totalPnl = bots.reduce((s, b) => s + (Number.isFinite(b.pnl) ? b.pnl : 0), 0);
  const isConnected = exchange !== '' && !!connected[exchange];

  return (
    <Container size="xl" py="md">
      <style>{PULSE_CSS}</style>
      <Group gap="xs" mb="md">
        <Button component={Link} to="/grid-bot" variant="subtle" size="xs">
          {t('dca.nav.grid')}
        </Button>
        <Button variant="subtle" size="xs">
          {t('dca.nav.advanced')}
        </Button>
        <Button component={Link} to="/bot-dca" variant="light" size="xs">
          {t('dca.nav.dca')}
        </Button>
        <Button component={Link} to="/arbitraje" variant="subtle" size="xs">
          {t('dca.nav.arbitrage')}
        </Button>
        <Button component={Link} to="/signalbot" variant="subtle" size="xs">
          {t('dca.nav.signal')}
        </Button>
        <Button component={Link} to="/forum" variant="outline" size="xs">
          {t('dca.nav.forum')}
        </Button>
      </Group>
      <Title order={2} mb="md">
        {t('dca.title')}
      </Title>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
        <Paper withBorder p="md">
          <Stack gap="sm">
            <Group align="flex-end" gap="xs">
              <NativeSelect
                label={t('dca.form.exchange')}
                value={exchange}
                onChange={(e) => chooseExchange(e.currentTarget.value)}
                data={[
                  { value: '', label: t('dca.form.exchangePlaceholder') },
                  ...EXCHANGES.map((e) => ({
                    value: e.key,
                    label: `${e.name} ${connected[e.key] ? t('dca.form.connectedMark') : t('dca.form.notConnectedMark')}`,
                  })),
                ]}
                style={{ flex: 1 }}
                data-testid="dca-exchange"
              />
              {exchange && (
                <Badge color={isConnected ? 'green' : 'red'} data-testid="dca-exchange-badge">
                  {isConnected ? t('dca.form.connected') : t('dca.form.notConnected')}
                </Badge>
              )}
            </Group>
            <NativeSelect
              label={t('dca.form.marketType')}
              value={apartado}
              onChange={(e) => chooseApartado(e.currentTarget.value)}
              data={[...MARKET_TYPES]}
              data-testid="dca-market-type"
            />
            <div style={{ position: 'relative' }}>
              <TextInput
                label={t('dca.form.pair')}
                placeholder={t('dca.form.pairPlaceholder')}
                value={pair}
                onChange={(e) => setPair(e.currentTarget.value.toUpperCase())}
                onFocus={() => setPairFocus(true)}
                onBlur={() => setTimeout(() => setPairFocus(false), 150)}
                data-testid="dca-pair"
              />
              {pairFocus && suggestions.length > 0 && !suggestions.includes(pair) && (
                <Card
                  withBorder
                  padding={4}
                  style={{ position: 'absolute', zIndex: 20, left: 0, right: 0 }}
                  data-testid="dca-pair-suggestions"
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
                      data-testid="dca-pair-suggestion"
                    >
                      {s}
                    </Text>
                  ))}
                </Card>
              )}
              {exchange && pair && pairs.data && !pairFocus && !pairs.data.includes(pair.trim()) && (
                <Text size="xs" c="red" mt={4}>
                  {t('dca.form.pairNotAvailable', { exchange: exchangeName(exchange) })}
                </Text>
              )}
            </div>
            <SimpleGrid cols={2} spacing="xs">
              <TextInput
                label={t('dca.form.amount')}
                value={amount}
                onChange={(e) => setAmount(commaToDot(e.currentTarget.value))}
                data-testid="dca-amount"
              />
              <TextInput
                ref={tpRef}
                label={t('dca.form.tp')}
                value={tp}
                className={invalid.tp ? 'dca-invalid' : undefined}
                onChange={(e) => onPct('tp', e.currentTarget.value)}
                data-testid="dca-tp"
              />
              <TextInput
                ref={sepRef}
                label={t('dca.form.separation')}
                value={sep}
                className={invalid.sep ? 'dca-invalid' : undefined}
                onChange={(e) => onPct('sep', e.currentTarget.value)}
                data-testid="dca-sep"
              />
              <TextInput
                label={t('dca.form.os')}
                value={os}
                onChange={(e) => setOs(commaToDot(e.currentTarget.value))}
                data-testid="dca-os"
              />
            </SimpleGrid>
            {apartado !== 'Spot' && (
              <Group>
                <Button
                  variant="default"
                  onClick={() => {
                    if (!exchange) return fail(t('dca.validation.leverageNoExchange'));
                    setLeverageOpen(true);
                  }}
                  data-testid="dca-leverage-btn"
                >
                  {t('dca.form.leverageButton', { n: leverage })}
                </Button>
                <SegmentedControl
                  value={direction}
                  onChange={(v) => setDirection(v)}
                  data={['LONG', 'SHORT']}
                  aria-label={t('dca.form.direction')}
                />
              </Group>
            )}
            {formError && (
              <Alert color="red" data-testid="dca-form-error">
                {formError}
              </Alert>
            )}
            <Button onClick={() => void startBot()} data-testid="dca-start">
              {t('dca.form.start')}
            </Button>
          </Stack>
        </Paper>
        <Paper withBorder p="md">
          <Stack gap="sm">
            <Title order={4}>{t('dca.bots.title')}</Title>
            {bots.length === 0 && <Text c="dimmed">{t('dca.bots.none')}</Text>}
            {shownBots.map((b) => (
              <ActiveBotRow
                key={b.id}
                bot={b}
                price={priceOf(b)}
                edit={editOf(b)}
                now={now}
                optimistic={b.id.startsWith('optimistic-')}
                onEdit={(f, v) => onEdit(b, f, v)}
                onRa={(en) => void toggleRa(b, en)}
                onHistory={() => setHistoryBot(b)}
                onPending={() => setPendingBot(b)}
                onRelocate={() => void relocate(b)}
                onStop={() => setStopBot(b)}
                onEvents={() => setEventsBot(b)}
              />
            ))}
            <Pager page={Math.min(botPage, botPages)} pages={botPages} onPage={setBotPage} />
          </Stack>
        </Paper>
      </SimpleGrid>
      <Paper withBorder p="sm" mt="lg">
        <Group justify="space-between">
          <Group>
            <Text fw={600} c={totalPnl >= 0 ? 'green' : 'red'} data-testid="dca-total-pnl">
              {t('dca.footer.totalPnl', { pnl: totalPnl.toFixed(2) })}
            </Text>
            <Text data-testid="dca-active-count">
              {t('dca.footer.active', { n: botsQ.data?.bots.length ?? 0 })}
            </Text>
          </Group>
          <Group>
            <Button
              variant="default"
              size="xs"
              onClick={() => setClosedOpen(true)}
              data-testid="dca-closed-btn"
            >
              {t('dca.footer.history')}
            </Button>
            <Anchor component={Link} to="/GlobalPendingOrders">
              {t('dca.footer.globalPending')}
            </Anchor>
            <Anchor component={Link} to="/historial-global">
              {t('dca.footer.globalHistory')}
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
      {leverageOpen && (
        <LeverageDialog
          opened={leverageOpen}
          value={leverage}
          onCancel={() => setLeverageOpen(false)}
          onConfirm={confirmLeverage}
        />
      )}
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
      <EventsDialog bot={eventsBot} onClose={() => setEventsBot(null)} />
      <ClosedBotsDialog opened={closedOpen} onClose={() => setClosedOpen(false)} />
    </Container>
  );
}
