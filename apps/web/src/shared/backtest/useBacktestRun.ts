import { useEffect, useRef, useState } from 'react';
import { ApiError, errorMessage } from '../api/client';
import { backtestApi, type BacktestRequest, type BacktestView } from './api';

/** How often a running backtest is asked for its progress. */
export const BACKTEST_POLL_MS = 500;

export type BacktestRunState =
  | { phase: 'idle'; error?: string; cancelled?: boolean }
  | { phase: 'starting' }
  | { phase: 'running'; id: string; progress: number; queued: boolean; cancelling?: boolean }
  | { phase: 'done'; id: string; result: BacktestView };

/** The running backtest's id, the pending poll, and a token that makes stale answers void. */
interface Live {
  id: string | null;
  timer: ReturnType<typeof setTimeout> | null;
  token: number;
}

/** Stops polling and voids answers in flight; returns the id that was running, if any. */
function halt(l: Live): string | null {
  if (l.timer) clearTimeout(l.timer);
  l.timer = null;
  l.token += 1;
  const id = l.id;
  l.id = null;
  return id;
}

/**
 * One backtest at a time: POST it, poll GET every 500 ms until it is done, failed or cancelled,
 * Cancel sends DELETE. A server refusal (the start form's own messages, 409 for a second one) comes
 * back as `error`, word for word; a network failure as `network` with the browser's reason. Leaving
 * (unmount) cancels a backtest still running, so the next one is not refused.
 */
export function useBacktestRun(texts: { failed: string; network: (message: string) => string }) {
  const [state, setState] = useState<BacktestRunState>({ phase: 'idle' });
  const live = useRef<Live>({ id: null, timer: null, token: 0 });
  const textsRef = useRef(texts);
  textsRef.current = texts;

  const refusal = (err: unknown) =>
    err instanceof ApiError ? errorMessage(err) : textsRef.current.network(errorMessage(err));

  const poll = async (id: string, token: number): Promise<void> => {
    const l = live.current;
    let r: BacktestView;
    try {
      r = await backtestApi.get(id);
    } catch (err) {
      if (token !== l.token) return;
      if (err instanceof ApiError) {
        // Gone (expired, another session deleted it) or refused: say so and stop.
        halt(l);
        setState({ phase: 'idle', error: errorMessage(err) });
        return;
      }
      // A network blip: keep asking.
      l.timer = setTimeout(() => void poll(id, token), BACKTEST_POLL_MS);
      return;
    }
    if (token !== l.token) return;
    if (r.status === 'done') {
      halt(l);
      setState({ phase: 'done', id, result: r });
    } else if (r.status === 'failed') {
      halt(l);
      setState({ phase: 'idle', error: r.error || textsRef.current.failed });
    } else if (r.status === 'cancelled') {
      halt(l);
      setState({ phase: 'idle', cancelled: true });
    } else {
      setState({
        phase: 'running',
        id,
        progress: Number.isFinite(r.progress) ? Math.min(1, Math.max(0, r.progress)) : 0,
        queued: r.status === 'queued',
      });
      l.timer = setTimeout(() => void poll(id, token), BACKTEST_POLL_MS);
    }
  };

  const run = async (req: BacktestRequest) => {
    halt(live.current);
    const token = live.current.token;
    setState({ phase: 'starting' });
    try {
      const r = await backtestApi.start(req);
      if (token !== live.current.token) {
        // Cancelled or closed while the POST was on its way: the server's run is not wanted.
        if (r.id) void backtestApi.cancel(r.id).catch(() => undefined);
        return;
      }
      if (!r.success || !r.id) {
        // A 2xx without an id: say what the server said, if anything.
        const said = r as { error?: unknown; message?: unknown };
        const text =
          typeof said.error === 'string' ? said.error : typeof said.message === 'string' ? said.message : '';
        setState({ phase: 'idle', error: text || textsRef.current.failed });
        return;
      }
      const id = r.id;
      live.current.id = id;
      setState({ phase: 'running', id, progress: 0, queued: true });
      live.current.timer = setTimeout(() => void poll(id, token), BACKTEST_POLL_MS);
    } catch (err) {
      if (token !== live.current.token) return;
      setState({ phase: 'idle', error: refusal(err) });
    }
  };

  /** Cancel: polling stops at once; Run comes back once the server has it cancelled (one run per user). */
  const cancel = async () => {
    const id = halt(live.current);
    if (!id) return setState({ phase: 'idle', cancelled: true });
    const token = live.current.token;
    setState((s) => (s.phase === 'running' ? { ...s, cancelling: true } : s));
    try {
      await backtestApi.cancel(id);
      if (token === live.current.token) setState({ phase: 'idle', cancelled: true });
    } catch (err) {
      if (token === live.current.token) setState({ phase: 'idle', error: refusal(err) });
    }
  };

  /** Back to the settings after a result (the result stays on the server until it expires). */
  const reset = () => {
    halt(live.current);
    setState({ phase: 'idle' });
  };

  useEffect(() => {
    const l = live.current;
    return () => {
      const id = halt(l);
      if (id) void backtestApi.cancel(id).catch(() => undefined);
    };
  }, []);

  return { state, run, cancel, reset };
}
