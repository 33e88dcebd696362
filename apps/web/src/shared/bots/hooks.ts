import { notifications } from '@mantine/notifications';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, errorMessage } from '../api/client';
import type { BotIdentity, ClosedBotRow, StopMode } from './api';
import { realisedSummary, type RealisedSummary } from './figures';
import type { ProgressPhase } from './dialogs';
import { commaToDot } from './format';
import type { BotScreen } from './screen';

/** How often what was edited (and its window is over) is sent, and the rows re-polled (spec part 2 §9). */
export const RESEND_MS = 5_000;

/**
 * A poll period that pauses while a dialog is open: `refetchInterval: poll(5_000)` is `false` while
 * `paused`.
 */
export function usePolling(paused: boolean) {
  return (ms: number): number | false => (paused ? false : ms);
}

/** The server's list with the optimistic row of a start under way, unless the server lists it already. */
export function withOptimistic<B extends BotIdentity>(list: B[], optimistic: B | null): B[] {
  if (optimistic && !list.some((b) => b.exchange === optimistic.exchange && b.symbol === optimistic.symbol)) {
    return [...list, optimistic];
  }
  return list;
}

/** One page of `items`, `perPage` a page; a page past the end shows the last one. */
export function usePagedList<T>(items: T[], perPage: number) {
  const [page, setPage] = useState(1);
  const pages = Math.max(1, Math.ceil(items.length / perPage));
  const cur = Math.min(page, pages);
  return { page: cur, pages, setPage, shown: items.slice((cur - 1) * perPage, cur * perPage) };
}

/** Local edit state of a bot's SL and TP+ (spec: 30 s countdown, resent every 5 s after it ends). */
export interface SlTpEdit {
  sl: string;
  tpPlus: string;
  slEditedAt: number | null;
  tpEditedAt: number | null;
}

export type SlTpField = 'sl' | 'tpPlus';

export const EDIT_WINDOW_MS = 30_000;

/** Whole seconds left of an edit's 30 s window (0 when none runs). */
export const secondsLeft = (editedAt: number | null, now: number) =>
  editedAt === null ? 0 : Math.max(0, Math.ceil((EDIT_WINDOW_MS - (now - editedAt)) / 1000));

interface SlTpBot {
  id: string;
  sl: number | null;
  tp_plus: number | null;
}

const emptyEdit = (b: SlTpBot): SlTpEdit => ({
  sl: b.sl === null ? '' : String(b.sl),
  tpPlus: b.tp_plus === null ? '' : String(b.tp_plus),
  slEditedAt: null,
  tpEditedAt: null,
});

/**
 * The SL / TP+ inputs of the bot rows: an edit starts a 30 s countdown (ticking every second), and
 * every 5 s what was edited more than 30 s ago is sent with `send` (an empty field sends `null`);
 * a failure shows 'Error: …'. `sendNow` (the row's Update button) sends a bot's edits at once, and
 * leaving the page sends what is still counting down, so no edit is lost (issue 37 point 20). A value
 * `invalid` says is wrong is never sent: the row shows why beside the field and the edit waits.
 */
export function useDebouncedSlTp<B extends SlTpBot>(
  bots: B[],
  send: (bot: B, field: SlTpField, value: number | null) => Promise<unknown>,
  invalid?: (bot: B, field: SlTpField, raw: string) => boolean,
) {
  const { t } = useTranslation();
  const [edits, setEdits] = useState<Record<string, SlTpEdit>>({});
  const editsRef = useRef(edits);
  editsRef.current = edits;
  const botsRef = useRef(bots);
  botsRef.current = bots;
  const sendRef = useRef(send);
  sendRef.current = send;
  const invalidRef = useRef(invalid);
  invalidRef.current = invalid;
  const tRef = useRef(t);
  tRef.current = t;
  const [now, setNow] = useState(() => Date.now());
  // The clock ticks only while a countdown runs: a tick re-renders the whole bot screen (its form,
  // list and dialogs), and a screen with nothing counting down stays idle (issue 39: /bot-dca's
  // main-thread work, Lighthouse's TBT).
  const counting = Object.values(edits).some((e) => e.slEditedAt !== null || e.tpEditedAt !== null);
  useEffect(() => {
    if (!counting) return;
    const tick = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(tick);
  }, [counting]);

  /**
   * Sends the fields of bot `id` that `due` picks (and are valid), clearing their countdown first so
   * the 5 s timer does not send them again. Resolves true when every send succeeded (false: nothing
   * was due, a value is invalid, or a send failed — reported as 'Error: …').
   */
  const flush = useRef((id: string, due: (editedAt: number) => boolean): Promise<boolean> => {
    const e = editsRef.current[id];
    const b = botsRef.current.find((x) => x.id === id);
    if (!e || !b) return Promise.resolve(false);
    const toNum = (v: string) => (v.trim() === '' ? null : Number(v));
    const fields: [SlTpField, string, number | null, 'slEditedAt' | 'tpEditedAt'][] = [
      ['sl', e.sl, e.slEditedAt, 'slEditedAt'],
      ['tpPlus', e.tpPlus, e.tpEditedAt, 'tpEditedAt'],
    ];
    const sends: Promise<unknown>[] = [];
    let blocked = false;
    for (const [field, value, editedAt, key] of fields) {
      if (editedAt === null || !due(editedAt)) continue;
      if (invalidRef.current?.(b, field, value)) {
        blocked = true;
        continue;
      }
      const cleared = { ...e, [key]: null };
      editsRef.current = { ...editsRef.current, [id]: { ...(editsRef.current[id] ?? cleared), [key]: null } };
      setEdits((p) => ({ ...p, [id]: { ...(p[id] ?? cleared), [key]: null } }));
      sends.push(sendRef.current(b, field, toNum(value)));
    }
    if (sends.length === 0) return Promise.resolve(false);
    return Promise.all(sends).then(
      () => !blocked,
      (err: unknown) => {
        notifications.show({
          color: 'red',
          message: tRef.current('bots.errors.generic', { message: errorMessage(err) }),
        });
        return false;
      },
    );
  }).current;

  useEffect(() => {
    const timer = setInterval(() => {
      const at = Date.now();
      for (const id of Object.keys(editsRef.current)) {
        void flush(id, (editedAt) => at - editedAt > EDIT_WINDOW_MS);
      }
    }, RESEND_MS);
    return () => {
      clearInterval(timer);
      // Leaving the page within a countdown: what is still waiting goes now, not never.
      for (const id of Object.keys(editsRef.current)) void flush(id, () => true);
    };
  }, [flush]);
  const editOf = (b: B) => edits[b.id] ?? emptyEdit(b);
  const onEdit = (b: B, field: SlTpField, value: string) => {
    // The clock may have stood still (no countdown): the new one starts from the present, the same
    // instant as the edit, so it shows the full 30 s.
    const at = Date.now();
    setNow(at);
    setEdits((prev) => {
      const cur = prev[b.id] ?? emptyEdit(b);
      const v = commaToDot(value);
      return {
        ...prev,
        [b.id]: field === 'sl' ? { ...cur, sl: v, slEditedAt: at } : { ...cur, tpPlus: v, tpEditedAt: at },
      };
    });
  };
  /** Update: the bot's edits now, whatever their countdown (the countdown stays for edits not sent). */
  const sendNow = (b: B) => flush(b.id, () => true);
  /** True while the bot has an edit not sent yet. */
  const pending = (b: B) => {
    const e = edits[b.id];
    return !!e && (e.slEditedAt !== null || e.tpEditedAt !== null);
  };
  return { now, editOf, onEdit, sendNow, pending };
}

/**
 * `later(fn, ms)`: a timer that dies with the component. The progress modals close 2 s after a start or
 * a stop; a screen left within those 2 s must not set state on an unmounted tree (in the tests, after
 * the DOM is gone, React's update then threw "window is not defined").
 */
export function useLater() {
  const timers = useRef(new Set<ReturnType<typeof setTimeout>>());
  useEffect(() => {
    const pending = timers.current;
    return () => {
      for (const t of pending) clearTimeout(t);
      pending.clear();
    };
  }, []);
  return (fn: () => void, ms: number) => {
    const t = setTimeout(() => {
      timers.current.delete(t);
      fn();
    }, ms);
    timers.current.add(t);
  };
}

/**
 * The start's progress (spec part 2 §2): an optimistic row while it runs, then 'success' (the bot
 * list refreshed) or 'error' with 'Error al iniciar bot: …'; the modal closes after 2 s.
 */
export function useStartFlow<B extends BotIdentity>(screen: BotScreen) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [phase, setPhase] = useState<ProgressPhase | null>(null);
  const [detail, setDetail] = useState<string | null>(null);
  const [optimistic, setOptimistic] = useState<B | null>(null);
  const later = useLater();
  const run = async (opt: B, start: () => Promise<unknown>) => {
    setOptimistic(opt);
    setDetail(null);
    setPhase('loading');
    try {
      await start();
      setPhase('success');
      notifications.show({
        color: 'green',
        message: t('bots.toasts.started', { symbol: opt.symbol, exchange: opt.exchange }),
      });
      await qc.invalidateQueries({ queryKey: [screen.scope, 'bots'] });
      setOptimistic(null);
    } catch (err) {
      // The server's spec texts in the user's language. The mapper, with the contract's bot messages and
      // their schemas' chunks, loads only on a failure: /bot-dca's first paint does not wait for it.
      const raw = errorMessage(err, 'Error');
      const message = await import('./serverText').then(
        (m) => m.botServerText(t, raw),
        () => raw,
      );
      setOptimistic(null);
      setPhase('error');
      const detail = t('bots.errors.start', { message });
      setDetail(detail);
      notifications.show({ color: 'red', message: detail });
    }
    later(() => setPhase(null), 2_000);
  };
  return { phase, detail, optimistic, run, close: () => setPhase(null) };
}

/**
 * The stop: the dialog asks for the mode, then the progress modal; 2 s after a success `onStopped`
 * runs and the bot list is refreshed.
 */
export function useStopFlow<B extends BotIdentity>(
  screen: BotScreen,
  {
    stop,
    beforeStop,
    onStopped,
  }: {
    stop: (bot: B, mode: StopMode) => Promise<{ success: boolean; error?: string; message?: string }>;
    beforeStop?: (bot: B) => void;
    onStopped?: (bot: B) => void;
  },
) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [bot, setBot] = useState<B | null>(null);
  const [phase, setPhase] = useState<ProgressPhase | null>(null);
  const [detail, setDetail] = useState<string | null>(null);
  const later = useLater();
  const choose = async (mode: StopMode) => {
    const b = bot;
    setBot(null);
    if (!b) return;
    beforeStop?.(b);
    setDetail(null);
    setPhase('loading');
    try {
      const r = await stop(b, mode);
      if (!r.success) throw new Error(r.error ?? r.message ?? t('bots.errors.stopUnknown'));
      setPhase('success');
      notifications.show({
        color: 'green',
        message: t('bots.toasts.stopped', { symbol: b.symbol, exchange: b.exchange }),
      });
      later(() => {
        onStopped?.(b);
        void qc.invalidateQueries({ queryKey: [screen.scope, 'bots'] });
      }, 2_000);
    } catch (err) {
      setPhase('error');
      const detail =
        err instanceof TypeError
          ? t('bots.errors.stopNetwork')
          : // A 5xx carries no reason the user can act on (the server never sends internals):
            // the spec's plain '❌ Error al detener el bot.'.
            err instanceof ApiError && err.status >= 500
            ? t('bots.errors.stopPlain')
            : t('bots.errors.stop', { message: errorMessage(err, t('bots.errors.stopUnknown')) });
      setDetail(detail);
      notifications.show({ color: 'red', message: detail });
    }
    later(() => setPhase(null), 2_000);
  };
  return {
    bot,
    ask: setBot,
    cancel: () => setBot(null),
    choose,
    phase,
    detail,
    closeProgress: () => setPhase(null),
  };
}

/**
 * The present, re-read every `ms` (a minute by default): the rows' runtimes ('3 d 4 h') move without a
 * timer per row, and a screen re-renders once a minute for it, not every second.
 */
export function useNow(ms = 60_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

/**
 * A toast for each fill the polled list shows (issue 40 pt 3): `fillOf(before, now)` compares a bot's
 * two polls and answers the toast's text when something filled between them (a lot opened or closed, a
 * round or a trip completed), else null. The first answer only sets what later ones compare with; a
 * bot seen for the first time toasts nothing.
 */
export function useFillToasts<T>(
  items: readonly T[] | undefined,
  keyOf: (item: T) => string,
  fillOf: (before: T, now: T) => string | null,
) {
  const seen = useRef<Map<string, T> | null>(null);
  const fns = useRef({ keyOf, fillOf });
  fns.current = { keyOf, fillOf };
  useEffect(() => {
    if (!items) return;
    const { keyOf: key, fillOf: fill } = fns.current;
    const before = seen.current;
    const next = new Map<string, T>();
    for (const item of items) {
      const k = key(item);
      next.set(k, item);
      const prev = before?.get(k);
      const message = prev === undefined || prev === item ? null : fill(prev, item);
      if (message) notifications.show({ color: 'teal', message, autoClose: 6_000 });
    }
    seen.current = next;
  }, [items]);
}

/**
 * The stopped bots' realised profit for a screen's footer (today, 7 days, all), from the closed bots'
 * history the footer's 'Trading history' dialog reads too (same query, GET /api/historial). It loads
 * once the active bots have (`enabled`), and again when the number of active bots falls (a bot stopped).
 */
export function useClosedRealised(
  screen: BotScreen,
  load: () => Promise<{ historial: ClosedBotRow[] }>,
  activeCount: number,
  enabled: boolean,
): RealisedSummary | null {
  const qc = useQueryClient();
  const q = useQuery({ queryKey: [screen.scope, 'closed'], queryFn: load, enabled });
  const before = useRef(activeCount);
  useEffect(() => {
    if (activeCount < before.current) void qc.invalidateQueries({ queryKey: [screen.scope, 'closed'] });
    before.current = activeCount;
  }, [activeCount, qc, screen.scope]);
  const now = useNow();
  return useMemo(
    () =>
      q.data
        ? realisedSummary(
            q.data.historial.map((b) => ({ at: b.datetime_cierre, pnl: b.pnl })),
            now,
          )
        : null,
    [q.data, now],
  );
}
